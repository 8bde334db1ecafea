package virtadmission

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

func validPool() *poolv1.VirtualMachinePool {
	mem := resource.MustParse("128Mi")
	always := kubevirtv1.RunStrategyAlways
	return &poolv1.VirtualMachinePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: "pool.kubevirt.io/v1beta1", Kind: "VirtualMachinePool"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pool"},
		Spec: poolv1.VirtualMachinePoolSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			VirtualMachineTemplate: &poolv1.VirtualMachineTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: kubevirtv1.VirtualMachineSpec{RunStrategy: &always, Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{
					Spec: kubevirtv1.VirtualMachineInstanceSpec{
						Domain: kubevirtv1.DomainSpec{Memory: &kubevirtv1.Memory{Guest: &mem},
							Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{Name: "root"}}}},
						Volumes: []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{
							ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "virtflow/test-guest"}}}},
					}}},
			},
		},
	}
}

var poolsV1beta1 = metav1.GroupVersionResource{Group: "pool.kubevirt.io", Version: "v1beta1", Resource: "virtualmachinepools"}

func poolReview(t *testing.T, op admissionv1.Operation, pool, old *poolv1.VirtualMachinePool) admission.Response {
	t.Helper()
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: op, Resource: poolsV1beta1}}
	raw, err := json.Marshal(pool)
	require.NoError(t, err)
	req.Object.Raw = raw
	if old != nil {
		req.OldObject.Raw, err = json.Marshal(old)
		require.NoError(t, err)
	}
	return (&VMPoolValidator{}).Handle(context.Background(), req)
}

func poolCause(t metav1.CauseType, f, msg string) metav1.StatusCause {
	return metav1.StatusCause{Type: t, Field: f, Message: msg}
}

func TestValidPoolIsAdmitted(t *testing.T) {
	resp := poolReview(t, admissionv1.Create, validPool(), nil)
	require.True(t, resp.Allowed, "%v", resp.Result)
}

func TestPoolAdmissionDeniesAsUpstream(t *testing.T) {
	inv := metav1.CauseTypeFieldValueInvalid
	pct := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	cases := []struct {
		name   string
		mutate func(*poolv1.VirtualMachinePool)
		want   []metav1.StatusCause
	}{
		{"no template", func(p *poolv1.VirtualMachinePool) { p.Spec.VirtualMachineTemplate = nil },
			[]metav1.StatusCause{poolCause(metav1.CauseTypeFieldValueRequired, "spec.template", "missing virtual machine template.")}},
		{"no VMI template", func(p *poolv1.VirtualMachinePool) { p.Spec.VirtualMachineTemplate.Spec.Template = nil },
			[]metav1.StatusCause{poolCause(metav1.CauseTypeFieldValueRequired, "spec.virtualMachineTemplate.spec.template", "missing virtual machine template.")}},
		{"VM spec causes are rooted at the template", func(p *poolv1.VirtualMachinePool) {
			p.Spec.VirtualMachineTemplate.Spec.RunStrategy = nil
			p.Spec.VirtualMachineTemplate.Spec.Template.Spec.Domain.Devices.Disks = append(p.Spec.VirtualMachineTemplate.Spec.Template.Spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: "gone"})
		}, []metav1.StatusCause{
			poolCause(inv, "spec.virtualMachineTemplate.spec.template.spec.domain.devices.disks[1].name",
				"spec.virtualMachineTemplate.spec.template.spec.domain.devices.disks[1].Name 'gone' not found."),
			poolCause(inv, "spec.virtualMachineTemplate.spec.running", "RunStrategy must be specified"),
		}},
		{"selector does not match", func(p *poolv1.VirtualMachinePool) { p.Spec.Selector.MatchLabels["app"] = "db" },
			[]metav1.StatusCause{poolCause(inv, "spec.selector", "selector does not match labels.")}},
		{"nil selector never matches", func(p *poolv1.VirtualMachinePool) { p.Spec.Selector = nil },
			[]metav1.StatusCause{poolCause(inv, "spec.selector", "selector does not match labels.")}},
		{"bad selector", func(p *poolv1.VirtualMachinePool) {
			p.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
		}, []metav1.StatusCause{poolCause(inv, "spec.selector", `"Near" is not a valid label selector operator`)}},
		{"percentage without %", func(p *poolv1.VirtualMachinePool) { p.Spec.MaxUnavailable = pct("50") },
			[]metav1.StatusCause{poolCause(inv, "spec.maxUnavailable", "maxUnavailable percentage must end with %")}},
		{"unparsable percentage", func(p *poolv1.VirtualMachinePool) { p.Spec.MaxUnavailable = pct("x%") },
			[]metav1.StatusCause{poolCause(inv, "spec.maxUnavailable", `maxUnavailable percentage value "x" is invalid: strconv.Atoi: parsing "x": invalid syntax`)}},
		{"percentage out of range", func(p *poolv1.VirtualMachinePool) { p.Spec.MaxUnavailable = pct("101%") },
			[]metav1.StatusCause{poolCause(inv, "spec.maxUnavailable", "maxUnavailable percentage value 101 must be between 1 and 100")}},
		{"zero", func(p *poolv1.VirtualMachinePool) { z := intstr.FromInt32(0); p.Spec.MaxUnavailable = &z },
			[]metav1.StatusCause{poolCause(inv, "spec.maxUnavailable", "maxUnavailable must be greater than 0")}},
		{"two update strategies", func(p *poolv1.VirtualMachinePool) {
			p.Spec.UpdateStrategy = &poolv1.VirtualMachinePoolUpdateStrategy{Unmanaged: &poolv1.VirtualMachinePoolUnmanagedStrategy{},
				Proactive: &poolv1.VirtualMachinePoolProactiveUpdateStrategy{}}
		}, []metav1.StatusCause{poolCause(inv, "spec.updateStrategy", "only one strategy can be configured at a time: but found unmanaged, proactive strategies")}},
		{"three scale-in strategies", func(p *poolv1.VirtualMachinePool) {
			p.Spec.ScaleInStrategy = &poolv1.VirtualMachinePoolScaleInStrategy{Unmanaged: &poolv1.VirtualMachinePoolUnmanagedStrategy{},
				Opportunistic: &poolv1.VirtualMachinePoolOpportunisticScaleInStrategy{}, Proactive: &poolv1.VirtualMachinePoolProactiveScaleInStrategy{}}
		}, []metav1.StatusCause{poolCause(inv, "spec.scaleInStrategy", "only one strategy can be configured at a time: but found unmanaged, opportunistic, proactive strategies")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pool := validPool()
			c.mutate(pool)
			resp := poolReview(t, admissionv1.Create, pool, nil)
			require.False(t, resp.Allowed)
			require.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code)
			require.Equal(t, metav1.StatusReasonInvalid, resp.Result.Reason)
			require.Equal(t, c.want, resp.Result.Details.Causes)
			msgs := ""
			for i, cause := range c.want {
				if i > 0 {
					msgs += ", "
				}
				msgs += cause.Message
			}
			require.Equal(t, msgs, resp.Result.Message)
		})
	}
}

func TestPoolSelectorIsImmutable(t *testing.T) {
	old := validPool()
	pool := validPool()
	pool.Spec.Selector.MatchLabels["tier"] = "gold"
	pool.Spec.VirtualMachineTemplate.ObjectMeta.Labels["tier"] = "gold"
	resp := poolReview(t, admissionv1.Update, pool, old)
	require.False(t, resp.Allowed)
	require.Equal(t, []metav1.StatusCause{poolCause(metav1.CauseTypeFieldValueInvalid, "spec.selector", "selector is immutable after creation.")},
		resp.Result.Details.Causes)

	replicas := int32(5)
	scaled := validPool()
	scaled.Spec.Replicas = &replicas
	require.True(t, poolReview(t, admissionv1.Update, scaled, old).Allowed, "anything but the selector may change")
	require.True(t, poolReview(t, admissionv1.Create, pool, nil).Allowed, "creation has no old selector")
}

func TestDeletingPoolIsAdmittedSoItsFinalizerCanGo(t *testing.T) {
	pool := validPool()
	pool.Spec.Selector.MatchLabels["app"] = "db"
	now := metav1.Now()
	pool.DeletionTimestamp = &now
	require.True(t, poolReview(t, admissionv1.Update, pool, pool).Allowed)
}

func TestPoolUpdateWithUnreadableOldObject(t *testing.T) {
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Update, Resource: poolsV1beta1}}
	raw, err := json.Marshal(validPool())
	require.NoError(t, err)
	req.Object.Raw, req.OldObject.Raw = raw, []byte("{")
	resp := (&VMPoolValidator{}).Handle(context.Background(), req)
	require.False(t, resp.Allowed)
	require.Equal(t, metav1.StatusCause{Type: metav1.CauseTypeUnexpectedServerResponse, Message: "Could not fetch old vmpool"}, resp.Result.Details.Causes[0])
}

func TestPoolRequestForAnotherResourceIsABadRequest(t *testing.T) {
	for _, c := range []struct {
		gvr  metav1.GroupVersionResource
		want string
	}{
		{metav1.GroupVersionResource{Group: "pool.kubevirt.io", Version: "v1beta1", Resource: "pools"}, "expect resource [virtualmachinepools], but got [pools]"},
		{metav1.GroupVersionResource{Group: "kubevirt.io", Version: "v1beta1", Resource: "virtualmachinepools"}, "expect resource group [pool.kubevirt.io], but got [kubevirt.io]"},
		{metav1.GroupVersionResource{Group: "pool.kubevirt.io", Version: "v1alpha1", Resource: "virtualmachinepools"}, "expect resource version [v1beta1], but got [v1alpha1]"},
	} {
		req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Create, Resource: c.gvr,
			Object: runtime.RawExtension{Raw: []byte("{}")}}}
		resp := (&VMPoolValidator{}).Handle(context.Background(), req)
		require.False(t, resp.Allowed)
		require.Equal(t, int32(http.StatusBadRequest), resp.Result.Code)
		require.Equal(t, c.want, resp.Result.Message)
	}
}

func TestPoolWebhookIsRegisteredAsUpstream(t *testing.T) {
	cc := func(path string) (cfg admissionregistrationv1.WebhookClientConfig) { cfg.URL = &path; return }
	var found bool
	for _, h := range ValidatingWebhooks(cc) {
		if h.Name != "virtualmachinepool-validator.kubevirt.io" {
			continue
		}
		found = true
		require.Equal(t, VMPoolValidatePath, *h.ClientConfig.URL)
		require.Equal(t, "/virtualmachinepool-validate", VMPoolValidatePath)
		require.Len(t, h.Rules, 1)
		require.Equal(t, []string{"pool.kubevirt.io"}, h.Rules[0].APIGroups)
		require.Equal(t, []string{"v1beta1"}, h.Rules[0].APIVersions)
		require.Equal(t, []string{"virtualmachinepools"}, h.Rules[0].Resources)
		require.ElementsMatch(t, createUpd, h.Rules[0].Operations)
	}
	require.True(t, found)
	require.Contains(t, Webhooks(nil, nil), VMPoolValidatePath)
}
