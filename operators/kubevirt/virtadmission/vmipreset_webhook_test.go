package virtadmission

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

var presetGVR = metav1.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: "virtualmachineinstancepresets"}

func presetReview(t *testing.T, op admissionv1.Operation, gvr metav1.GroupVersionResource, p *kubevirtv1.VirtualMachineInstancePreset) admission.Response {
	t.Helper()
	raw, err := json.Marshal(p)
	require.NoError(t, err)
	return (&VMIPresetValidator{}).Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, Resource: gvr, Object: runtime.RawExtension{Raw: raw}}})
}

func TestAValidPresetIsAdmittedOnCreateAndUpdate(t *testing.T) {
	p := preset("small", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2},
		Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{Name: "root"}}}})
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		resp := presetReview(t, op, presetGVR, p)
		assert.True(t, resp.Allowed, "%s: %v", op, resp.Result)
	}
	alpha := presetGVR
	alpha.Version = "v1alpha3"
	assert.True(t, presetReview(t, admissionv1.Create, alpha, p).Allowed, "v1alpha3 is served upstream")
}

func TestPresetDenialsFollowUpstream(t *testing.T) {
	noDomain := preset("none", flavor, kubevirtv1.DomainSpec{})
	noDomain.Spec.Domain = nil
	both := preset("both", flavor, kubevirtv1.DomainSpec{Firmware: &kubevirtv1.Firmware{Bootloader: &kubevirtv1.Bootloader{
		BIOS: &kubevirtv1.BIOS{}, EFI: &kubevirtv1.EFI{}}}})
	args := preset("args", flavor, kubevirtv1.DomainSpec{Firmware: &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{KernelArgs: "quiet"}}})
	twice := preset("twice", flavor, kubevirtv1.DomainSpec{Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{Name: "a"}, {Name: "a"}}}})
	cases := map[string]struct {
		p    *kubevirtv1.VirtualMachineInstancePreset
		want metav1.StatusCause
	}{
		"missing domain": {noDomain, required("spec.domain", "missing domain.")},
		"EFI and BIOS": {both, invalid("spec.domain.firmware.bootloader",
			"spec.domain.firmware.bootloader has both EFI and BIOS configured, but they are mutually exclusive.")},
		"kernel args alone": {args, invalid("spec.domain.firmware.kernelBoot.kernelArgs", "kernel arguments cannot be provided without an external kernel")},
		"duplicate disks": {twice, invalid("spec.domain.devices.disks[1].name",
			"spec.domain.devices.disks[1] and spec.domain.devices.disks[0] must not have the same Name.")},
	}
	for name, c := range cases {
		resp := presetReview(t, admissionv1.Create, presetGVR, c.p)
		require.False(t, resp.Allowed, name)
		assert.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code, name)
		assert.Equal(t, metav1.StatusReasonInvalid, resp.Result.Reason, name)
		assert.Equal(t, c.want.Message, resp.Result.Message, name)
		assert.Equal(t, []metav1.StatusCause{c.want}, resp.Result.Details.Causes, name)
	}
}

func TestThePresetValidatorRefusesOtherResources(t *testing.T) {
	other := presetGVR
	other.Resource = "virtualmachines"
	resp := presetReview(t, admissionv1.Create, other, preset("p", nil, kubevirtv1.DomainSpec{}))
	require.False(t, resp.Allowed)
	assert.Equal(t, int32(http.StatusBadRequest), resp.Result.Code)
	assert.Equal(t, "expect resource to be 'virtualmachineinstancepresets'", resp.Result.Message)
}

func TestPresetWebhookIsRegisteredAsUpstream(t *testing.T) {
	cc := func(path string) (cfg admissionregistrationv1.WebhookClientConfig) { cfg.URL = &path; return }
	var found bool
	for _, h := range ValidatingWebhooks(cc) {
		if h.Name != "virtualmachinepreset-validator.kubevirt.io" {
			continue
		}
		found = true
		require.Equal(t, "/vmipreset-validate", *h.ClientConfig.URL)
		require.Len(t, h.Rules, 1)
		require.Equal(t, []string{"kubevirt.io"}, h.Rules[0].APIGroups)
		require.Equal(t, kubevirtv1.ApiSupportedWebhookVersions, h.Rules[0].APIVersions)
		require.Equal(t, []string{"virtualmachineinstancepresets"}, h.Rules[0].Resources)
		require.ElementsMatch(t, createUpd, h.Rules[0].Operations)
	}
	require.True(t, found)
	require.Contains(t, Webhooks(nil, nil), VMIPresetValidatePath)
}
