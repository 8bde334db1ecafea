//go:build integration

package integration

import (
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
	"k8s.io/client-go/rest"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/virtctl"
)

func vmiPaused(c crclient.Client, key types.NamespacedName) bool {
	v := &kubevirtv1.VirtualMachineInstance{}
	if c.Get(context.Background(), key, v) != nil {
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
// (authn, RBAC) → aggregation layer → the virt-api pod → virt-controller or
// the virt-handler pod → the launcher pod → libvirt.
func TestVirtctlDrivesAVMThroughTheAggregatedAPI(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)
	vm := testGuestVM("vmctl", kubevirtv1.RunStrategyHalted)
	vm.Namespace = ns
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	key := crclient.ObjectKeyFromObject(vm)

	out, err := n.virtctl(ns, "version")
	require.NoError(t, err)
	require.Contains(t, out, "Server Version: ")

	bind(t, n.c, ns, "carol-viewer", "view")
	_, err = n.virtctl(ns, "--as", "carol-viewer", "start", "vmctl")
	require.Error(t, err)
	require.Contains(t, err.Error(), "forbidden")

	out, err = n.virtctl(ns, "start", "vmctl")
	require.NoError(t, err)
	require.Contains(t, out, "VM vmctl was scheduled to start")
	runningVMI(t, n.c, key)
	_, err = n.virtctl(ns, "start", "vmctl")
	require.ErrorContains(t, err, "VM is already running")

	console, err := virtctl.OpenStream(ctx, n.cfg, ns, "vmctl", "console")
	require.NoError(t, err)
	require.True(t, askGuest(console, 2*time.Minute), "the guest did not answer on its console")
	console.Close()

	require.True(t, vncGreets(t, n.kubeconfig, ns, "vmctl"), "virtctl vnc --proxy-only did not relay the RFB greeting")

	require.Eventually(t, func() bool {
		out, err := n.virtctl(ns, "guestosinfo", "vmctl")
		return err == nil && strings.Contains(out, `"id": "virtflow-test-guest"`) && strings.Contains(out, `"hostname": "vmctl"`)
	}, time.Minute, 500*time.Millisecond, "guestosinfo did not report the test guest's agent, with the host name DHCP gave")
	v := &kubevirtv1.VirtualMachineInstance{}
	require.Eventually(t, func() bool {
		return n.c.Get(ctx, key, v) == nil && v.Status.GuestOSInfo.ID == "virtflow-test-guest"
	}, 30*time.Second, 200*time.Millisecond, "status.guestOSInfo was not filled from the agent")

	viewerCfg := rest.CopyConfig(n.cfg)
	viewerCfg.Impersonate.UserName = "carol-viewer"
	_, err = virtctl.OpenStream(ctx, viewerCfg, ns, "vmctl", "console")
	require.ErrorContains(t, err, "forbidden")

	_, err = n.virtctl(ns, "pause", "vmi", "vmctl")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return vmiPaused(n.c, key) && vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusPaused },
		30*time.Second, 100*time.Millisecond, "the VM did not report Paused")
	_, err = n.virtctl(ns, "unpause", "vmi", "vmctl")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return !vmiPaused(n.c, key) && vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusRunning
	},
		30*time.Second, 100*time.Millisecond, "the VM did not resume")

	_, err = n.virtctl(ns, "stop", "vmctl", "--force", "--grace-period", "0")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusStopped }, 2*time.Minute, 200*time.Millisecond)
	_, err = n.virtctl(ns, "stop", "vmctl")
	require.ErrorContains(t, err, "VM is not running")
}

// vncGreets runs `virtctl vnc --proxy-only`, connects to the port it
// prints, as a VNC viewer would, and reads the server's RFB greeting.
func vncGreets(t *testing.T, kubeconfig, ns, name string) bool {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- virtctl.Main(context.Background(), []string{"--kubeconfig", kubeconfig, "-n", ns, "vnc", name, "--proxy-only"}, pw)
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
