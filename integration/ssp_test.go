//go:build integration

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/cli"
	"github.com/virtflow/virtflow/operands"
	"github.com/virtflow/virtflow/operands/commontemplates"
	"github.com/virtflow/virtflow/operators/ssp/ssp"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

const testGuestTemplate = "virtflow-test-guest-server-small"

// TestSSPInstallsTemplatesAndTheValidator checks ssp-operator's operands
// on the real stack: the common templates in `openshift`, the template
// validator's pods refusing a VM below its template's minimum memory with
// upstream's message and warning on a justWarning rule, and the SSP
// Available once both are there.
func TestSSPInstallsTemplatesAndTheValidator(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	require.Eventually(t, func() bool {
		cr := &sspv1beta3.SSP{}
		return n.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: operands.SSPName}, cr) == nil &&
			sspAvailable(cr)
	}, 3*time.Minute, time.Second, "the SSP never became Available")
	list := &templatev1.TemplateList{}
	require.NoError(t, n.c.List(ctx, list, crclient.InNamespace("openshift"), crclient.MatchingLabels{"template.kubevirt.io/type": "base"}))
	require.Len(t, list.Items, len(commontemplates.Templates(commontemplates.Options{})))

	space := n.namespace(t)
	vm := processTestGuestTemplate(t, n, "small-mem")
	vm.Spec.Template.Spec.Domain.Memory.Guest = ptrQuantity("128Mi")
	vm.Namespace = space
	require.EqualError(t, n.c.Create(ctx, vm), `admission webhook "virtualmachine-admission.ssp.kubevirt.io" denied the request: `+
		`This VM requires more memory.: value 134217728 is lower than minimum [268435456]`)

	// The Windows templates advise virtio over SATA with a justWarning
	// rule: a VM carrying their rules with a SATA disk is admitted with
	// the advice as a warning.
	win := processTemplate(t, n, "windows11-desktop-medium", "win")
	sata := processTestGuestTemplate(t, n, "sata")
	sata.Annotations["vm.kubevirt.io/validations"] = win.Annotations["vm.kubevirt.io/validations"]
	sata.Spec.Template.Spec.Domain.Memory.Guest = ptrQuantity("8Gi")
	sata.Spec.Template.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 2}
	sata.Spec.Template.Spec.Domain.Devices.Disks[0].Disk.Bus = kubevirtv1.DiskBusSATA
	sata.APIVersion, sata.Kind = "kubevirt.io/v1", "VirtualMachine"
	manifest, err := json.Marshal(sata)
	require.NoError(t, err)
	create := kubectlAt(n.dataDir, "create", "--dry-run=server", "-n", space, "-f", "-")
	create.Stdin = bytes.NewReader(manifest)
	out, err := create.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "Warning: virtio disk bus type has better performance, install virtio drivers in VM and change bus type: Some of [sata] are not in [virtio]")
}

// TestAVMFromTheTestGuestTemplateBoots waits for the test guest's boot
// source, which SSP's cron imports from the node's registry into the
// boot-image namespace (upstream's sources cannot be reached and their
// crons say so), processes its template as a user does (virtflow template
// process) and boots the VM; a protected VM cannot be deleted until its
// label goes.
func TestAVMFromTheTestGuestTemplateBoots(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	s := n.space(t)
	bootSourceIsReady(t, n.c, commontemplates.TestGuestOS)
	// Upstream's own boot sources cannot be reached from here: their crons
	// say so.
	require.Eventually(t, func() bool {
		cron := &cdiv1.DataImportCron{}
		if n.c.Get(ctx, types.NamespacedName{Namespace: ssp.DefaultBootImageNamespace, Name: "fedora-image-cron"}, cron) != nil {
			return false
		}
		for _, c := range cron.Status.Conditions {
			if c.Type == cdiv1.DataImportCronUpToDate && c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "last poll failed") {
				return true
			}
		}
		return false
	}, 3*time.Minute, time.Second, "fedora's cron does not say its source is out of reach")

	vm := processTestGuestTemplate(t, n, "web1")
	vm.Namespace = s.ns
	always := kubevirtv1.RunStrategyAlways
	vm.Spec.RunStrategy = &always
	require.NoError(t, n.c.Create(ctx, vm))
	vmi := runningVMI(t, n.c, crclient.ObjectKeyFromObject(vm))
	pod := launcherPodOf(t, n.c, vmi)
	waitForText(t, filepath.Join(launcherpod.HostEmptyDir(n.kubeletRoot(), string(pod.UID), launcherpod.PrivateVolume), "serial.log"), guestDiskOK, 3*time.Minute)

	setLabel(t, n.c, vm, "kubevirt.io/vm-delete-protection", "true")
	err := n.c.Delete(ctx, vm)
	require.True(t, apierrors.IsInvalid(err) || apierrors.IsForbidden(err), "%v", err)
	require.ErrorContains(t, err, "VirtualMachine web1 cannot be deleted, disable/remove label 'kubevirt.io/vm-delete-protection' from VirtualMachine before deleting it")
	setLabel(t, n.c, vm, "kubevirt.io/vm-delete-protection", "")
	deleteVM(t, n.c, vm)
}

// bootSourceIsReady waits for SSP's cron to import a boot source into its
// DataSource in the boot-image namespace.
func bootSourceIsReady(t *testing.T, c crclient.Client, name string) {
	t.Helper()
	require.Eventually(t, func() bool {
		ds := &cdiv1.DataSource{}
		if c.Get(context.Background(), types.NamespacedName{Namespace: ssp.DefaultBootImageNamespace, Name: name}, ds) != nil {
			return false
		}
		for _, cond := range ds.Status.Conditions {
			if cond.Type == cdiv1.DataSourceReady && cond.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}, 4*time.Minute, time.Second, "the boot source %s never became Ready", name)
}

// processTestGuestTemplate runs `virtflow template process` on the test
// guest's template and decodes its VM.
func processTestGuestTemplate(t *testing.T, n *upRun, name string) *kubevirtv1.VirtualMachine {
	t.Helper()
	return processTemplate(t, n, testGuestTemplate, name)
}

// processTemplate runs `virtflow template process` on a common template
// and decodes its VM.
func processTemplate(t *testing.T, n *upRun, template, name string) *kubevirtv1.VirtualMachine {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, cli.Main(context.Background(), []string{"template", "process", template,
		"--kubeconfig", n.kubeconfig, "-p", "NAME=" + name}, &out))
	var list struct {
		Items []kubevirtv1.VirtualMachine `json:"items"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &list), out.String())
	require.Len(t, list.Items, 1)
	vm := &list.Items[0]
	require.Equal(t, "openshift", vm.Labels["vm.kubevirt.io/template.namespace"])
	return vm
}

// TestRulesOfAUserTemplateHoldIt checks the older way of carrying rules:
// on the template (annotation validations), found through the VM's
// labels; such a template cannot be deleted while VMs take their rules
// from it.
func TestRulesOfAUserTemplateHoldIt(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	s := n.space(t)
	rules := `[{"name":"minimal-required-memory","path":"jsonpath::.spec.domain.memory.guest","rule":"integer",` +
		`"message":"This VM requires more memory.","min":268435456}]`
	s.create(&templatev1.Template{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "mine",
		Labels: map[string]string{"template.kubevirt.io/type": "base"}, Annotations: map[string]string{"validations": rules}},
		Objects: []runtime.RawExtension{}})
	vm := testGuestVM("from-mine", kubevirtv1.RunStrategyHalted)
	vm.Namespace = s.ns
	vm.Labels = map[string]string{"vm.kubevirt.io/template": "mine", "vm.kubevirt.io/template.namespace": s.ns}
	vm.Spec.Template.Spec.Domain.Memory = &kubevirtv1.Memory{Guest: ptrQuantity("128Mi")}
	vm.Spec.Template.Spec.Domain.Resources = kubevirtv1.ResourceRequirements{}
	require.EqualError(t, n.c.Create(ctx, vm.DeepCopy()), `admission webhook "virtualmachine-admission.ssp.kubevirt.io" denied the request: `+
		`This VM requires more memory.: value 134217728 is lower than minimum [268435456]`)
	vm.Spec.Template.Spec.Domain.Memory.Guest = ptrQuantity("512Mi")
	require.NoError(t, n.c.Create(ctx, vm))
	tmpl := &templatev1.Template{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "mine"}}
	// The validator reads VMs from its informer, as upstream's does, so the
	// VM just created holds the template once the cache has it.
	refused := `admission webhook "template-admission.ssp.kubevirt.io" denied the request: ` +
		`Template cannot be deleted, because the following VMs are referencing it for validation: ` + s.ns + `/from-mine`
	var err error
	require.Eventually(t, func() bool {
		err = n.c.Delete(ctx, tmpl.DeepCopy(), crclient.DryRunAll)
		return err != nil
	}, 30*time.Second, 100*time.Millisecond, "the template's deletion was never refused")
	require.EqualError(t, err, refused)
	require.NoError(t, n.c.Delete(ctx, vm))
}

func setLabel(t *testing.T, c crclient.Client, vm *kubevirtv1.VirtualMachine, key, value string) {
	t.Helper()
	patch := `{"metadata":{"labels":{"` + key + `":"` + value + `"}}}`
	if value == "" {
		patch = `{"metadata":{"labels":{"` + key + `":null}}}`
	}
	require.NoError(t, c.Patch(context.Background(), vm, crclient.RawPatch(types.MergePatchType, []byte(patch))))
}

func sspAvailable(cr *sspv1beta3.SSP) bool {
	for _, c := range cr.Status.Conditions {
		if c.Type == "Available" && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func ptrQuantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}
