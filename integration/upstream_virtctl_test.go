//go:build integration

package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/virtflow/virtflow/version"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// upstreamVirtctl runs the unmodified upstream KubeVirt virtctl built by
// hack/upstream-virtctl.sh against the test cluster.
type upstreamVirtctl struct{ bin, kubeconfig, ns string }

func newUpstreamVirtctl(t *testing.T, kubeconfig, ns string) upstreamVirtctl {
	out, err := exec.Command("../hack/upstream-virtctl.sh").Output()
	require.NoError(t, err, "building upstream virtctl")
	return upstreamVirtctl{bin: strings.TrimSpace(string(out)), kubeconfig: kubeconfig, ns: ns}
}

func (u upstreamVirtctl) command(args ...string) *exec.Cmd {
	cmd := exec.Command(u.bin, append([]string{"--kubeconfig", u.kubeconfig, "-n", u.ns}, args...)...)
	// virtctl ssh and scp run ssh with a ProxyCommand of virtctl itself,
	// which takes only the environment's kubeconfig.
	cmd.Env = append(os.Environ(), "KUBECONFIG="+u.kubeconfig)
	return cmd
}

func (u upstreamVirtctl) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := u.command(args...).CombinedOutput()
	require.NoError(t, err, "upstream virtctl %v: %s", args, out)
	return string(out)
}

// TestUpstreamVirtctlDrivesAVM is the README walk-through with upstream's
// own virtctl: create vm, start, console, vnc, pause, unpause, stop, on
// the real node's pods.
func TestUpstreamVirtctlDrivesAVM(t *testing.T) {
	n := onNode(t)
	u := newUpstreamVirtctl(t, n.kubeconfig, n.namespace(t))
	ctx := context.Background()

	manifest := u.run(t, "create", "vm", "--name", "vmup", "--run-strategy", "Halted")
	require.Contains(t, manifest, "name: vmup", "upstream create vm prints a manifest")
	vm := testGuestVM("vmup", kubevirtv1.RunStrategyHalted)
	vm.Namespace = u.ns
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	key := crclient.ObjectKeyFromObject(vm)

	require.Contains(t, u.run(t, "version"), `Server Version: version.Info{GitVersion:"`+version.Base)
	require.Contains(t, u.run(t, "start", "vmup"), "VM vmup was scheduled to start")
	runningVMI(t, n.c, key)

	require.True(t, upstreamConsoleAnswers(t, u, "vmup"), "the guest did not answer on upstream virtctl's console")
	require.True(t, upstreamVNCGreets(t, u, "vmup"), "upstream virtctl vnc --proxy-only did not relay the RFB greeting")

	require.Eventually(t, func() bool {
		out, err := u.command("guestosinfo", "vmup").CombinedOutput()
		return err == nil && strings.Contains(string(out), "virtflow-test-guest")
	}, time.Minute, 500*time.Millisecond, "upstream virtctl guestosinfo did not show the test guest")

	u.run(t, "pause", "vm", "vmup")
	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusPaused }, 30*time.Second, 100*time.Millisecond)
	u.run(t, "unpause", "vm", "vmup")
	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusRunning }, 30*time.Second, 100*time.Millisecond)

	require.Contains(t, u.run(t, "stop", "vmup", "--force", "--grace-period", "0"), "VM vmup was scheduled to stop")
	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusStopped }, 2*time.Minute, 200*time.Millisecond)
}

func upstreamConsoleAnswers(t *testing.T, u upstreamVirtctl, name string) bool {
	cmd := u.command("console", name, "--timeout", "1")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = cmd.Stdout
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	return askGuest(struct {
		io.Reader
		io.Writer
	}{stdout, stdin}, 2*time.Minute)
}

func upstreamVNCGreets(t *testing.T, u upstreamVirtctl, name string) bool {
	return readUntil(dialUpstreamVNC(t, u, name), "RFB 003.008", 30*time.Second)
}

// dialUpstreamVNC connects to the VMI's display through upstream
// virtctl's vnc proxy; the proxy and the connection end with the test.
func dialUpstreamVNC(t *testing.T, u upstreamVirtctl, name string) net.Conn {
	cmd := u.command("vnc", name, "--proxy-only")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	var printed struct{ Port int }
	require.NoError(t, json.Unmarshal([]byte(line), &printed), "upstream prints the port as JSON: %q", line)
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", printed.Port))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}
