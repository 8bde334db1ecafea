//go:build integration

package integration

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/node/podnet"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// httpGet fetches url until it answers 200 or the minute passes, and
// returns the body.
func httpGet(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Timeout: 3 * time.Second}
	var body string
	var last error
	require.Eventually(t, func() bool {
		resp, err := c.Get(url)
		if err != nil {
			last = err
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		last = fmt.Errorf("status %d: %s", resp.StatusCode, body)
		return resp.StatusCode == http.StatusOK
	}, 2*time.Minute, time.Second, "GET %s never answered: %v", url, last)
	return body
}

// TestAMasqueradeGuestServesHTTPByItsIPAClusterIPAndANodePort: the guest
// gets its address from the launcher's DHCP server, the VMI reports the
// pod's address, and the guest's web server answers the host through the
// pod's NAT, a ClusterIP and a NodePort that upstream's virtctl expose
// made.
func TestAMasqueradeGuestServesHTTPByItsIPAClusterIPAndANodePort(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)
	key := sshKey(t)
	vm := testGuestVM("web", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	withAuthorizedKey(vm, key)
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	vmKey := crclient.ObjectKeyFromObject(vm)
	vmi := runningVMI(t, n.c, vmKey)
	require.Len(t, vmi.Spec.Domain.Devices.Interfaces, 1)
	require.NotNil(t, vmi.Spec.Domain.Devices.Interfaces[0].Masquerade, "the default interface is masquerade")

	var ip string
	require.Eventually(t, func() bool {
		got := &kubevirtv1.VirtualMachineInstance{}
		if n.c.Get(ctx, vmKey, got) != nil || len(got.Status.Interfaces) != 1 {
			return false
		}
		ip = got.Status.Interfaces[0].IP
		return ip != "" && got.Status.Interfaces[0].PodInterfaceName == "eth0"
	}, time.Minute, 200*time.Millisecond)
	pods := &corev1.PodList{}
	require.NoError(t, n.c.List(ctx, pods, crclient.InNamespace(ns), crclient.MatchingLabels{kubevirtv1.CreatedByLabel: string(vmi.UID)}))
	require.Len(t, pods.Items, 1)
	require.Equal(t, pods.Items[0].Status.PodIP, ip, "a masquerade interface reports the pod's address")

	require.Equal(t, "VIRTFLOW-GUEST-HTTP web", strings.TrimSpace(httpGet(t, "http://"+ip+"/")),
		"the guest took its host name from DHCP and answers through the pod's NAT")

	u := newUpstreamVirtctl(t, n.kubeconfig, ns)
	out := u.run(t, "expose", "vm", "web", "--name", "web", "--port", "80")
	require.Contains(t, out, "Service web successfully created for vm web")
	svc := &corev1.Service{}
	require.NoError(t, n.c.Get(ctx, crclient.ObjectKey{Namespace: ns, Name: "web"}, svc))
	require.Equal(t, "VIRTFLOW-GUEST-HTTP web", strings.TrimSpace(httpGet(t, "http://"+svc.Spec.ClusterIP+"/")))

	u.run(t, "expose", "vmi", "web", "--name", "web-np", "--port", "8080", "--target-port", "80", "--type", "NodePort")
	np := &corev1.Service{}
	require.NoError(t, n.c.Get(ctx, crclient.ObjectKey{Namespace: ns, Name: "web-np"}, np))
	port := np.Spec.Ports[0].NodePort
	require.NotZero(t, port)
	require.Equal(t, "VIRTFLOW-GUEST-HTTP web", strings.TrimSpace(httpGet(t, fmt.Sprintf("http://%s:%d/", pods.Items[0].Status.HostIP, port))))

	local := freePort(t)
	pf := u.command("port-forward", "vm/web", fmt.Sprintf("%d:80", local))
	require.NoError(t, pf.Start())
	defer func() { _ = pf.Process.Kill(); _ = pf.Wait() }()
	require.Equal(t, "VIRTFLOW-GUEST-HTTP web", strings.TrimSpace(httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/", local))),
		"upstream virtctl port-forward reaches the guest through virt-api")

	out = u.run(t, "ssh", "-i", key, "--local-ssh-opts=-o StrictHostKeyChecking=no", "--local-ssh-opts=-o UserKnownHostsFile=/dev/null",
		"root@vm/web", "-c", "hostname; cat /proc/sys/kernel/ostype")
	require.Contains(t, out, "web\nLinux", "upstream virtctl ssh runs the command in the guest")
}

// sshKey makes an ed25519 key pair and returns the private key's path.
func sshKey(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "id_ed25519")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return path
}

// withAuthorizedKey gives the VM a NoCloud disk authorizing the key for
// root, as cloud-init's ssh_authorized_keys.
func withAuthorizedKey(vm *kubevirtv1.VirtualMachine, private string) {
	pub, err := os.ReadFile(private + ".pub")
	if err != nil {
		panic(err)
	}
	spec := &vm.Spec.Template.Spec
	spec.Volumes = append(spec.Volumes, kubevirtv1.Volume{Name: "cloudinitdisk", VolumeSource: kubevirtv1.VolumeSource{
		CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserData: "#cloud-config\nssh_authorized_keys:\n  - " + strings.TrimSpace(string(pub)) + "\n"},
	}})
	spec.Domain.Devices.Disks = append(spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: "cloudinitdisk",
		DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusVirtio}}})
}

// freePort is a TCP port nothing listens on at the moment.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestExecuteInVMRunsTheScriptOverSSH runs upstream's execute-in-vm task
// with an ssh connection secret: the task reaches the guest at the VMI's
// address and runs the command as root with the key an access credential
// (propagated through NoCloud meta-data) installed.
func TestExecuteInVMRunsTheScriptOverSSH(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	key := sshKey(t)
	pub, err := os.ReadFile(key + ".pub")
	require.NoError(t, err)
	keys := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: pipelinesNS, Name: "ssh-target-keys"},
		Data: map[string][]byte{"key1": pub}}
	require.NoError(t, n.c.Create(ctx, keys))
	defer func() { _ = n.c.Delete(ctx, keys) }()
	vm := testGuestVM("ssh-target", kubevirtv1.RunStrategyAlways)
	vm.Namespace = pipelinesNS
	spec := &vm.Spec.Template.Spec
	spec.Volumes = append(spec.Volumes, kubevirtv1.Volume{Name: "cloudinitdisk", VolumeSource: kubevirtv1.VolumeSource{
		CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserData: "#cloud-config\n"}}})
	spec.AccessCredentials = []kubevirtv1.AccessCredential{{SSHPublicKey: &kubevirtv1.SSHPublicKeyAccessCredential{
		Source:            kubevirtv1.SSHPublicKeyAccessCredentialSource{Secret: &kubevirtv1.AccessCredentialSecretSource{SecretName: keys.Name}},
		PropagationMethod: kubevirtv1.SSHPublicKeyAccessCredentialPropagationMethod{NoCloud: &kubevirtv1.NoCloudSSHPublicKeyAccessCredentialPropagation{}},
	}}}
	require.NoError(t, n.c.Create(ctx, vm))
	// Registered before the TaskRun's own cleanup, so it runs after it:
	// the task's pod is gone from the namespace too by then.
	t.Cleanup(func() { deleteVM(t, n.c, vm) })
	private, err := os.ReadFile(key)
	require.NoError(t, err)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: pipelinesNS, Name: "ssh-target-connection"},
		StringData: map[string]string{"type": "ssh", "user": "root", "ssh-privatekey": string(private),
			"disable-strict-host-key-checking": "true"}}
	require.NoError(t, n.c.Create(ctx, secret))
	defer func() { _ = n.c.Delete(ctx, secret) }()

	run := taskRun(t, n, "execute-in-vm", map[string]any{
		"vmName": "ssh-target", "secretName": secret.Name, "command": []any{"cat", "/proc/sys/kernel/hostname"},
	})
	succeeded(t, n, taskRunGVK, pipelinesNS, run, 5*time.Minute)
	require.Contains(t, stepLog(t, n, pipelinesNS, run, "execute-in-vm"), "ssh-target",
		"the command ran in the guest, whose host name DHCP gave")
}

// TestABridgeBoundGuestHoldsThePodsAddress: with bridge binding on the
// pod network the guest takes the pod's address by DHCP and answers on it
// itself, and deleting the VM leaves nothing of its network on the node.
func TestABridgeBoundGuestHoldsThePodsAddress(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)
	vethsBefore := hostVeths(t)
	vm := testGuestVM("bridged", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	spec := &vm.Spec.Template.Spec
	spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "default",
		InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}}}
	spec.Networks = []kubevirtv1.Network{{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}}
	require.NoError(t, n.c.Create(ctx, vm))
	vmi := runningVMI(t, n.c, crclient.ObjectKeyFromObject(vm))
	pods := &corev1.PodList{}
	require.NoError(t, n.c.List(ctx, pods, crclient.InNamespace(ns), crclient.MatchingLabels{kubevirtv1.CreatedByLabel: string(vmi.UID)}))
	require.Len(t, pods.Items, 1)
	ip := pods.Items[0].Status.PodIP
	require.Equal(t, "VIRTFLOW-GUEST-HTTP bridged", strings.TrimSpace(httpGet(t, "http://"+ip+"/")))
	serial := filepath.Join(launcherpod.HostEmptyDir(n.kubeletRoot(), string(pods.Items[0].UID), launcherpod.PrivateVolume), "serial.log")
	waitForText(t, serial, "VIRTFLOW-GUEST-IP "+ip, time.Minute) // the guest itself holds the pod's address

	podNS, err := podnet.PodNetns("/proc", string(pods.Items[0].UID))
	require.NoError(t, err)
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(podNS.Path, &st))

	deleteVM(t, n.c, vm)
	require.Eventually(t, func() bool { return !netnsInUse(st.Ino) && hostVeths(t) == vethsBefore },
		time.Minute, time.Second, "the pod's network namespace (bridge, tap, NAT) and its veth are gone with it")
}

// hostVeths counts the veth interfaces of the host's namespace.
func hostVeths(t *testing.T) int {
	out, err := exec.Command("ip", "-o", "link", "show", "type", "veth").Output()
	require.NoError(t, err)
	return strings.Count(string(out), "\n")
}

// netnsInUse tells whether a process is still in the network namespace
// of that inode.
func netnsInUse(ino uint64) bool {
	links, _ := filepath.Glob("/proc/[0-9]*/ns/net")
	for _, l := range links {
		var st syscall.Stat_t
		if syscall.Stat(l, &st) == nil && st.Ino == ino {
			return true
		}
	}
	return false
}
