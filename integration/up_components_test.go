//go:build integration

package integration

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/operands"
	"github.com/virtflow/virtflow/virtctl"
)

// kubeVirtComponentsArePods checks that virt-operator runs virt-api,
// virt-controller and virt-handler as Ready pods of the components image,
// that the aggregated API and the webhooks are the virt-api pod's, that
// deleting the KubeVirt CR removes them, and that the CR hco-operator puts
// back brings new ones.
func kubeVirtComponentsArePods(t *testing.T, c crclient.Client, dataDir string) {
	ctx := context.Background()
	before := componentPods(t, c)
	require.Len(t, before, 3)
	virtAPIServes(t, c, dataDir)
	handler := podOf(t, c, before["virt-handler"])
	require.True(t, strings.HasPrefix(handler.Spec.Containers[0].Image, platform.ComponentsRepository+":"), handler.Spec.Containers[0].Image)
	require.True(t, *handler.Spec.Containers[0].SecurityContext.Privileged, "virt-handler runs privileged, as upstream's")
	controller := podOf(t, c, before["virt-controller"])
	require.True(t, *controller.Spec.Containers[0].SecurityContext.RunAsNonRoot)

	kv := &kubevirtv1.KubeVirt{}
	key := types.NamespacedName{Namespace: platform.Namespace, Name: operands.KubeVirtName}
	require.NoError(t, c.Get(ctx, key, kv))
	oldUID := kv.UID
	kubeVirtUninstallIsBlockedByWorkloads(t, c, kv)
	// Other tests' workloads may still be going: the guard holds until
	// they are gone.
	require.Eventually(t, func() bool { return c.Delete(ctx, kv) == nil }, 2*time.Minute, 250*time.Millisecond,
		"the KubeVirt CR could not be deleted once no VM was left")
	require.Eventually(t, func() bool {
		for _, uid := range before {
			if podExists(c, uid) {
				return false
			}
		}
		return true
	}, 2*time.Minute, 250*time.Millisecond, "deleting the KubeVirt CR left its pods running")
	require.Eventually(t, func() bool {
		kv := &kubevirtv1.KubeVirt{}
		if c.Get(ctx, key, kv) != nil || kv.UID == oldUID {
			return false
		}
		for _, cond := range kv.Status.Conditions {
			if cond.Type == kubevirtv1.KubeVirtConditionAvailable && cond.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}, 2*time.Minute, 250*time.Millisecond, "hco-operator's new KubeVirt CR did not become Available")
	after := componentPods(t, c)
	for name, uid := range after {
		require.NotEqual(t, before[name], uid, "%s was not redeployed", name)
	}
	require.Len(t, after, 3)
	virtAPIServes(t, c, dataDir)
}

// virtAPIServes asks the aggregated API for virt-api's version and has
// its VMI webhook refuse a VMI without memory, as upstream's does.
func virtAPIServes(t *testing.T, c crclient.Client, dataDir string) {
	require.Eventually(t, func() bool {
		out, err := kubectlAt(dataDir, "get", "--raw", "/apis/subresources.kubevirt.io/v1/version").CombinedOutput()
		return err == nil && strings.Contains(string(out), "gitVersion")
	}, time.Minute, 250*time.Millisecond, "the aggregated API does not answer")
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "no-memory-"}}
	err := c.Create(context.Background(), vmi, crclient.DryRunAll)
	require.ErrorContains(t, err, "no memory requested")
}

// componentPods maps virt-api, virt-controller and virt-handler to the UID
// of their Ready pod, waiting until each has one.
func componentPods(t *testing.T, c crclient.Client) map[string]types.UID {
	out := map[string]types.UID{}
	require.Eventually(t, func() bool {
		pods := &corev1.PodList{}
		if c.List(context.Background(), pods, crclient.InNamespace(platform.Namespace), crclient.HasLabels{"kubevirt.io"}) != nil {
			return false
		}
		clear(out)
		for _, p := range pods.Items {
			// SSP's template validator carries the label too, as upstream's.
			name := p.Labels["kubevirt.io"]
			if podReady(p) && p.DeletionTimestamp == nil && (name == "virt-api" || name == "virt-controller" || name == "virt-handler") {
				out[name] = p.UID
			}
		}
		return len(out) == 3
	}, 2*time.Minute, 250*time.Millisecond, "virt-api, virt-controller and virt-handler have no Ready pods")
	return out
}

func podReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podOf(t *testing.T, c crclient.Client, uid types.UID) corev1.Pod {
	pods := &corev1.PodList{}
	require.NoError(t, c.List(context.Background(), pods, crclient.InNamespace(platform.Namespace)))
	for _, p := range pods.Items {
		if p.UID == uid {
			return p
		}
	}
	t.Fatalf("pod %s is gone", uid)
	return corev1.Pod{}
}

func podExists(c crclient.Client, uid types.UID) bool {
	pods := &corev1.PodList{}
	if c.List(context.Background(), pods, crclient.InNamespace(platform.Namespace)) != nil {
		return true
	}
	for _, p := range pods.Items {
		if p.UID == uid {
			return true
		}
	}
	return false
}

// consoleAndPauseCrossThePods drives the upvm VMI as virtctl does: its
// serial console and pause/unpause go through the aggregator to the
// virt-api pod, then to virt-handler's pod and the launcher's socket.
func consoleAndPauseCrossThePods(t *testing.T, c crclient.Client, dataDir string) {
	ctx := context.Background()
	kubeconfig := filepath.Join(dataDir, "kubernetes", "kubeconfig")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	console, err := virtctl.OpenStream(ctx, cfg, "default", "upvm", "console")
	require.NoError(t, err)
	require.True(t, askGuest(console, 2*time.Minute), "the guest did not answer on its console")
	console.Close()

	run := func(args ...string) {
		var out bytes.Buffer
		require.NoError(t, virtctl.Main(ctx, append([]string{"--kubeconfig", kubeconfig, "-n", "default"}, args...), &out), "virtctl %v: %s", args, out.String())
	}
	paused := func() bool {
		vmi := &kubevirtv1.VirtualMachineInstance{}
		if c.Get(ctx, crclient.ObjectKey{Namespace: "default", Name: "upvm"}, vmi) != nil {
			return false
		}
		for _, cond := range vmi.Status.Conditions {
			if cond.Type == kubevirtv1.VirtualMachineInstancePaused && cond.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	run("pause", "vmi", "upvm")
	eventuallyOrHandlerLog(t, dataDir, paused, "the VMI did not report Paused")
	run("unpause", "vmi", "upvm")
	eventuallyOrHandlerLog(t, dataDir, func() bool { return !paused() }, "the VMI stayed Paused")
}

// eventuallyOrHandlerLog waits up to 30s for cond and otherwise fails
// with virt-handler's log, where a VMI's reported state comes from.
func eventuallyOrHandlerLog(t *testing.T, dataDir string, cond func() bool, msg string) {
	t.Helper()
	if assert.Eventually(t, cond, 30*time.Second, 100*time.Millisecond, msg) {
		return
	}
	out, _ := kubectlAt(dataDir, "logs", "-n", platform.Namespace, "ds/virt-handler", "--tail=60").CombinedOutput()
	t.Fatalf("virt-handler's log:\n%s", out)
}

// kubeVirtUninstallIsBlockedByWorkloads checks upstream's uninstall
// strategy: with a VM present, deleting the KubeVirt CR is refused, and so
// is deleting the HyperConverged, whose webhook dry-runs that deletion.
func kubeVirtUninstallIsBlockedByWorkloads(t *testing.T, c crclient.Client, kv *kubevirtv1.KubeVirt) {
	ctx := context.Background()
	vm := testGuestVM("uninstall-guard", kubevirtv1.RunStrategyHalted)
	require.NoError(t, c.Create(ctx, vm))
	defer deleteVM(t, c, vm)
	refused := `admission webhook "kubevirt-validator.kubevirt.io" denied the request: Rejecting the uninstall request, ` +
		`since there are still Virtual Machines present. Either delete all KubeVirt related workloads or change the uninstall strategy before uninstalling KubeVirt.`
	require.EqualError(t, c.Delete(ctx, kv.DeepCopy(), crclient.DryRunAll), refused)
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: platform.Namespace, Name: platform.HCName}}
	require.EqualError(t, c.Delete(ctx, hc, crclient.DryRunAll),
		`admission webhook "validate-hco-v1beta1.kubevirt.io" denied the request: `+refused)
}
