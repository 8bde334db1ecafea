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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

var vmirsGVR = metav1.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: "virtualmachineinstancereplicasets"}

func vmirs(selector map[string]string, mutate func(*kubevirtv1.VirtualMachineInstanceTemplateSpec)) *kubevirtv1.VirtualMachineInstanceReplicaSet {
	mem := resource.MustParse("128Mi")
	t := &kubevirtv1.VirtualMachineInstanceTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"match": "me"}},
		Spec: kubevirtv1.VirtualMachineInstanceSpec{
			Domain: kubevirtv1.DomainSpec{
				Memory:  &kubevirtv1.Memory{Guest: &mem},
				Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{Name: "testdisk"}}},
			},
			Volumes: []kubevirtv1.Volume{{Name: "testdisk", VolumeSource: kubevirtv1.VolumeSource{
				ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "virtflow/test-guest"}}}},
		},
	}
	if mutate != nil {
		mutate(t)
	}
	rs := &kubevirtv1.VirtualMachineInstanceReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachineInstanceReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rs"},
		Spec:       kubevirtv1.VirtualMachineInstanceReplicaSetSpec{Template: t},
	}
	if selector != nil {
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: selector}
	}
	return rs
}

func vmirsReview(t *testing.T, op admissionv1.Operation, gvr metav1.GroupVersionResource, rs *kubevirtv1.VirtualMachineInstanceReplicaSet) admission.Response {
	t.Helper()
	raw, err := json.Marshal(rs)
	require.NoError(t, err)
	return (&VMIRSValidator{}).Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, Resource: gvr, Object: runtime.RawExtension{Raw: raw}}})
}

func TestAValidReplicaSetIsAdmittedOnCreateAndUpdate(t *testing.T) {
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		resp := vmirsReview(t, op, vmirsGVR, vmirs(map[string]string{"match": "me"}, nil))
		assert.True(t, resp.Allowed, "%s: %v", op, resp.Result)
	}
	alpha := vmirsGVR
	alpha.Version = "v1alpha3"
	assert.True(t, vmirsReview(t, admissionv1.Create, alpha, vmirs(map[string]string{"match": "me"}, nil)).Allowed, "v1alpha3 is served too")
}

func TestReplicaSetDenialsFollowUpstream(t *testing.T) {
	cases := map[string]struct {
		rs     *kubevirtv1.VirtualMachineInstanceReplicaSet
		causes []metav1.StatusCause
	}{
		"no template": {
			rs: func() *kubevirtv1.VirtualMachineInstanceReplicaSet {
				rs := vmirs(nil, nil)
				rs.Spec.Template = nil
				return rs
			}(),
			causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.template", Message: "missing virtual machine template."}},
		},
		"selector does not match": {
			rs:     vmirs(map[string]string{"match": "not"}, nil),
			causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.selector", Message: "selector does not match labels."}},
		},
		"no selector matches nothing": {
			rs:     vmirs(nil, nil),
			causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.selector", Message: "selector does not match labels."}},
		},
		"selector does not parse": {
			rs: func() *kubevirtv1.VirtualMachineInstanceReplicaSet {
				rs := vmirs(map[string]string{"match": "me"}, nil)
				rs.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "match", Operator: "Near"}}
				return rs
			}(),
			causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.selector", Message: `"Near" is not a valid label selector operator`}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resp := vmirsReview(t, admissionv1.Create, vmirsGVR, c.rs)
			require.False(t, resp.Allowed)
			assert.EqualValues(t, http.StatusUnprocessableEntity, resp.Result.Code)
			assert.Equal(t, metav1.StatusReasonInvalid, resp.Result.Reason)
			assert.Equal(t, c.causes, resp.Result.Details.Causes)
			assert.Equal(t, c.causes[0].Message, resp.Result.Message)
		})
	}
}

func TestReplicaSetTemplateSpecIsValidatedAsAVMIs(t *testing.T) {
	rs := vmirs(map[string]string{"match": "this"}, func(t *kubevirtv1.VirtualMachineInstanceTemplateSpec) {
		t.Spec.Volumes = nil
		t.ObjectMeta.Labels = nil
	})
	resp := vmirsReview(t, admissionv1.Create, vmirsGVR, rs)
	require.False(t, resp.Allowed)
	var fields, msgs []string
	for _, c := range resp.Result.Details.Causes {
		fields = append(fields, c.Field)
		msgs = append(msgs, c.Message)
	}
	assert.Equal(t, []string{"spec.template.spec.domain.devices.disks[0].name", "spec.selector"}, fields, "the spec's causes, then the selector's")
	assert.Equal(t, msgs[0]+", "+msgs[1], resp.Result.Message, "messages joined as upstream")
}

func TestReplicaSetWebhookRefusesOtherResources(t *testing.T) {
	vms := metav1.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: "virtualmachines"}
	resp := vmirsReview(t, admissionv1.Create, vms, vmirs(map[string]string{"match": "me"}, nil))
	require.False(t, resp.Allowed)
	assert.EqualValues(t, http.StatusBadRequest, resp.Result.Code)
	assert.Equal(t, "expect resource to be 'virtualmachineinstancereplicasets'", resp.Result.Message)
}

func TestReplicaSetWebhookIsRegisteredAsUpstreams(t *testing.T) {
	cc := func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{URL: &path}
	}
	var found bool
	for _, h := range ValidatingWebhooks(cc) {
		if h.Name != "virtualmachinereplicaset-validator.kubevirt.io" {
			continue
		}
		found = true
		assert.Equal(t, VMIRSValidatePath, *h.ClientConfig.URL)
		assert.Equal(t, "/virtualmachinereplicaset-validate", VMIRSValidatePath)
		require.Len(t, h.Rules, 1)
		assert.Equal(t, []string{"kubevirt.io"}, h.Rules[0].APIGroups)
		assert.Equal(t, []string{"v1alpha3", "v1"}, h.Rules[0].APIVersions)
		assert.Equal(t, []string{"virtualmachineinstancereplicasets"}, h.Rules[0].Resources)
		assert.ElementsMatch(t, createUpd, h.Rules[0].Operations)
	}
	assert.True(t, found)
	assert.Contains(t, Webhooks(nil, nil), VMIRSValidatePath)
}
