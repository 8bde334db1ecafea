//go:build integration

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/virtctl"
)

func runVirtctl(args ...string) (string, error) {
	var out bytes.Buffer
	err := virtctl.Main(context.Background(), append([]string{"--kubeconfig", env.cp.KubeconfigPath(), "-n", "default"}, args...), &out)
	return out.String(), err
}

func vmiPaused(key types.NamespacedName) bool {
	v := &kubevirtv1.VirtualMachineInstance{}
	if env.admin.Get(context.Background(), key, v) != nil {
		return false
	}
	for _, c := range v.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineInstancePaused && c.Status == "True" {
			return true
		}
	}
	return false
}

// TestVirtctlDrivesAVMThroughTheAggregatedAPI goes virtctl → kube-apiserver
// (authn, RBAC) → aggregation layer → virt-api → VM controller or node
// agent → launcher → libvirt.
func TestVirtctlDrivesAVMThroughTheAggregatedAPI(t *testing.T) {
	node := nodeConfig(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, SkipWorker: true, Nodes: []handler.Config{node}})
	ctx := context.Background()
	vm := testGuestVM("vmctl", kubevirtv1.RunStrategyHalted)
	require.NoError(t, env.admin.Create(ctx, vm))
	defer deleteVM(t, vm)
	key := crclient.ObjectKeyFromObject(vm)

	out, err := runVirtctl("version")
	require.NoError(t, err)
	require.Contains(t, out, "Server Version: ")

	bind(t, "carol-viewer", "view")
	_, err = runVirtctl("--as", "carol-viewer", "start", "vmctl")
	require.Error(t, err)
	require.Contains(t, err.Error(), "forbidden")

	out, err = runVirtctl("start", "vmctl")
	require.NoError(t, err)
	require.Contains(t, out, "VM vmctl was scheduled to start")
	runningVMI(t, key)
	_, err = runVirtctl("start", "vmctl")
	require.ErrorContains(t, err, "VM is already running")

	console, err := virtctl.OpenStream(ctx, env.cp.RESTConfig(), "default", "vmctl", "console")
	require.NoError(t, err)
	require.True(t, askGuest(console, 2*time.Minute), "the guest did not answer on its console")
	console.Close()

	require.True(t, vncGreets(t, "vmctl"), "virtctl vnc --proxy-only did not relay the RFB greeting")

	require.Eventually(t, func() bool {
		out, err := runVirtctl("guestosinfo", "vmctl")
		return err == nil && strings.Contains(out, `"id": "virtflow-test-guest"`) && strings.Contains(out, `"hostname": "virtflow-guest"`)
	}, time.Minute, 500*time.Millisecond, "guestosinfo did not report the test guest's agent")
	v := &kubevirtv1.VirtualMachineInstance{}
	require.Eventually(t, func() bool {
		return env.admin.Get(ctx, key, v) == nil && v.Status.GuestOSInfo.ID == "virtflow-test-guest"
	}, 30*time.Second, 200*time.Millisecond, "status.guestOSInfo was not filled from the agent")

	viewerCfg := env.cp.RESTConfig()
	viewerCfg.Impersonate.UserName = "carol-viewer"
	_, err = virtctl.OpenStream(ctx, viewerCfg, "default", "vmctl", "console")
	require.ErrorContains(t, err, "forbidden")

	_, err = runVirtctl("pause", "vmi", "vmctl")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return vmiPaused(key) && vmStatus(key) == kubevirtv1.VirtualMachineStatusPaused },
		30*time.Second, 100*time.Millisecond, "the VM did not report Paused")
	_, err = runVirtctl("unpause", "vmi", "vmctl")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !vmiPaused(key) && vmStatus(key) == kubevirtv1.VirtualMachineStatusRunning },
		30*time.Second, 100*time.Millisecond, "the VM did not resume")

	_, err = runVirtctl("stop", "vmctl", "--force", "--grace-period", "0")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return vmStatus(key) == kubevirtv1.VirtualMachineStatusStopped }, 2*time.Minute, 200*time.Millisecond)
	_, err = runVirtctl("stop", "vmctl")
	require.ErrorContains(t, err, "VM is not running")
}

// vncGreets runs `virtctl vnc --proxy-only`, connects to the port it
// prints, as a VNC viewer would, and reads the server's RFB greeting.
func vncGreets(t *testing.T, name string) bool {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- virtctl.Main(context.Background(), []string{"--kubeconfig", env.cp.KubeconfigPath(), "-n", "default", "vnc", name, "--proxy-only"}, pw)
		pw.Close()
	}()
	var printed struct{ Port int }
	require.NoError(t, json.NewDecoder(pr).Decode(&printed))
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", printed.Port))
	require.NoError(t, err)
	greeted := readUntil(conn, "RFB 003.008", 30*time.Second)
	conn.Close()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Error("virtctl vnc did not end when the viewer left")
	}
	return greeted
}

// askGuest sends a command until the guest's shell answers it: the console
// may attach before the guest has booted to its shell.
func askGuest(console io.ReadWriter, timeout time.Duration) bool {
	answered := make(chan bool, 1)
	go func() { answered <- readUntil(console, "ANSWER-42", timeout) }()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		_, _ = console.Write([]byte("\necho ANSWER-$((6*7))\n"))
		select {
		case ok := <-answered:
			return ok
		case <-tick.C:
		}
	}
}
