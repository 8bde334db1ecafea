//go:build integration

package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// TestUpstreamVirtctlSubresources runs upstream's own virtctl against a
// running guest for every subresource virt-api implements, and for one it
// does not yet: each answers as upstream's does.
func TestUpstreamVirtctlSubresources(t *testing.T) {
	n := onNode(t)
	u := newUpstreamVirtctl(t, n.kubeconfig, n.namespace(t))
	ctx := context.Background()
	vm := testGuestVM("subs", kubevirtv1.RunStrategyAlways)
	vm.Namespace = u.ns
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	runningVMI(t, n.c, crclient.ObjectKeyFromObject(vm))

	version := u.run(t, "version")
	require.Regexp(t, `Server Version: version.Info\{GitVersion:"v0\.1\.0-\d+-g[0-9a-f]{14}(-dirty)?", GitCommit:"[0-9a-f]{40}", GitTreeState:"(clean|dirty)", BuildDate:"20`, version)

	var users string
	require.Eventually(t, func() bool {
		out, err := u.command("userlist", "subs").CombinedOutput()
		users = string(out)
		return err == nil
	}, 2*time.Minute, time.Second, "the guest agent never connected: %s", users)
	require.Contains(t, users, `"userName": "root"`)
	fs := u.run(t, "fslist", "subs")
	require.Contains(t, fs, `"mountPoint": "/mnt"`)
	require.Contains(t, fs, `"fileSystemType": "ext2"`)

	serial := podSerialLog(t, n.c, n.kubeletRoot())(u.ns, "subs")
	qemu := qemuPID(u.ns + "_subs")
	require.NotEmpty(t, qemu)
	boots := func() int {
		b, _ := os.ReadFile(serial)
		return strings.Count(string(b), "VIRTFLOW-GUEST-READY")
	}
	require.Eventually(t, func() bool { return boots() == 1 }, time.Minute, 200*time.Millisecond)
	require.Contains(t, u.run(t, "soft-reboot", "subs"), "VMI subs was scheduled to soft-reboot")
	require.Eventually(t, func() bool { return boots() == 2 }, 2*time.Minute, 500*time.Millisecond, "the guest did not reboot")
	b, _ := os.ReadFile(serial)
	require.Contains(t, string(b), "VIRTFLOW-GUEST-REBOOT", "the agent rebooted it")
	require.Contains(t, u.run(t, "reset", "subs"), "VMI subs was scheduled to reset")
	require.Eventually(t, func() bool { return boots() == 3 }, 2*time.Minute, 500*time.Millisecond, "the guest was not reset")
	require.Equal(t, qemu, qemuPID(u.ns+"_subs"), "a reboot and a reset keep the same QEMU")
	require.Eventually(t, func() bool { return u.command("userlist", "subs").Run() == nil }, 2*time.Minute, time.Second,
		"the agent of the reset guest never came back")

	freezeAndThaw(t, n, u)
	expandAndGraph(t, n, u)

	out, err := u.command("migrate", "subs").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "VM subs was scheduled to migrate")
	require.NotRegexp(t, regexp.MustCompile("dotted-tri|not a valid semver"), string(out), "the server's version parses")
	// One node: the target cannot be scheduled beside the source. Upstream's
	// migrate-cancel deletes the migration, whose workflow removes the
	// target and leaves the guest where it runs.
	mig := migrationOf(t, n, u.ns, "subs")
	require.Contains(t, u.run(t, "migrate-cancel", "subs"), "VM subs was scheduled to migrate-cancel")
	requireCancelled(t, n, mig)
	require.Equal(t, qemu, qemuPID(u.ns+"_subs"), "the guest runs on, in the same QEMU")
}

// freezeAndThaw uses the freeze subresources (upstream virtctl has no
// command for them; snapshots call them) and sees the state in guestosinfo.
func freezeAndThaw(t *testing.T, n *upRun, u upstreamVirtctl) {
	path := "/apis/subresources.kubevirt.io/v1/namespaces/" + u.ns + "/virtualmachineinstances/subs/"
	body := filepath.Join(t.TempDir(), "freeze.json")
	require.NoError(t, os.WriteFile(body, []byte(`{"unfreezeTimeout":"5m"}`), 0o644))
	out, err := kubectlWith(n.kubeconfig, "replace", "--raw", path+"freeze", "-f", body).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, u.run(t, "guestosinfo", "subs"), `"fsFreezeStatus": "frozen"`)
	require.NoError(t, os.WriteFile(body, []byte(`{}`), 0o644))
	out, err = kubectlWith(n.kubeconfig, "replace", "--raw", path+"unfreeze", "-f", body).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NotContains(t, u.run(t, "guestosinfo", "subs"), "frozen")
	out, err = kubectlWith(n.kubeconfig, "replace", "--raw", path+"freeze", "-f", body).CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "Unfreeze timeout in freeze request is not set")
}

// expandAndGraph expands a VM manifest naming an instancetype, and prints
// the running VM's object graph.
func expandAndGraph(t *testing.T, n *upRun, u upstreamVirtctl) {
	ctx := context.Background()
	it := &instancetypev1beta1.VirtualMachineInstancetype{ObjectMeta: metav1.ObjectMeta{Namespace: u.ns, Name: "sized"},
		Spec: instancetypev1beta1.VirtualMachineInstancetypeSpec{CPU: instancetypev1beta1.CPUInstancetype{Guest: 2},
			Memory: instancetypev1beta1.MemoryInstancetype{Guest: resource.MustParse("192Mi")}}}
	require.NoError(t, n.c.Create(ctx, it))
	vm := testGuestVM("expandme", kubevirtv1.RunStrategyHalted)
	vm.APIVersion, vm.Kind = "kubevirt.io/v1", "VirtualMachine"
	vm.Namespace = ""
	vm.Spec.Template.Spec.Domain.Memory = nil
	vm.Spec.Instancetype = &kubevirtv1.InstancetypeMatcher{Kind: "VirtualMachineInstancetype", Name: "sized"}
	manifest, err := yaml.Marshal(vm)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "vm.yaml")
	require.NoError(t, os.WriteFile(file, manifest, 0o644))
	expanded := u.run(t, "expand", "--file", file)
	require.Contains(t, expanded, "guest: 192Mi")
	require.Contains(t, expanded, "sockets: 2")
	require.NotContains(t, expanded, "instancetype:")

	graph := u.run(t, "objectgraph", "subs")
	for _, want := range []string{`"kind": "VirtualMachine"`, `"kind": "VirtualMachineInstance"`, `"kind": "Pod"`, `"kubevirt.io/dependency-type": "compute"`} {
		require.Contains(t, graph, want)
	}
}

func kubectlWith(kubeconfig string, args ...string) *exec.Cmd {
	return exec.Command(filepath.Join(env.kubeBinDir, "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
}
