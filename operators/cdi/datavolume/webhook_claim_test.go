package datavolume

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/cdi/cdiconfig"
)

func existingClaim(edit func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "dv"}}
	if edit != nil {
		edit(pvc)
	}
	return pvc
}

func cdiConfig(gates ...string) *cdiv1.CDIConfig {
	return &cdiv1.CDIConfig{ObjectMeta: metav1.ObjectMeta{Name: cdiconfig.Name}, Spec: cdiv1.CDIConfigSpec{FeatureGates: gates}}
}

func annotate(dv *cdiv1.DataVolume, k, v string) {
	dv.Annotations = map[string]string{k: v}
}

func TestAnExistingClaimIsRefusedUnlessCDIWouldTakeIt(t *testing.T) {
	exists := denied(cause{metav1.CauseTypeFieldValueDuplicate, "DataVolume.Name", "Destination PVC ns/dv already exists"})
	ownedBy := func(kind string) func(*corev1.PersistentVolumeClaim) {
		return func(pvc *corev1.PersistentVolumeClaim) {
			pvc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: kind, Name: "o", UID: "u", Controller: ptr.To(true)}}
		}
	}
	uid := func(dv *cdiv1.DataVolume) { dv.UID = "dv-uid" }
	cases := []struct {
		name string
		objs []client.Object
		edit func(*cdiv1.DataVolume)
		want want
	}{
		{"no claim", nil, nil, allowed},
		{"claim of no one", []client.Object{existingClaim(nil), cdiConfig()}, nil, exists},
		{"claim of a pod", []client.Object{existingClaim(ownedBy("Pod")), cdiConfig()}, nil, exists},
		{"claim of a DataVolume", []client.Object{existingClaim(ownedBy("DataVolume")), cdiConfig()}, nil, allowed},
		{"claim populated for it", []client.Object{existingClaim(func(pvc *corev1.PersistentVolumeClaim) {
			pvc.Annotations = map[string]string{AnnPopulatedFor: "dv"}
		})}, nil, allowed},
		{"adoption asked for", []client.Object{existingClaim(nil)},
			func(dv *cdiv1.DataVolume) { annotate(dv, AnnAllowClaimAdoption, "true") }, allowed},
		{"adoption refused despite the gate", []client.Object{existingClaim(nil), cdiConfig(ClaimAdoptionGate)},
			func(dv *cdiv1.DataVolume) { annotate(dv, AnnAllowClaimAdoption, "no") }, exists},
		{"adoption by the gate", []client.Object{existingClaim(nil), cdiConfig(ClaimAdoptionGate)}, nil, allowed},
		{"a claim made for this DataVolume is never adopted", []client.Object{existingClaim(func(pvc *corev1.PersistentVolumeClaim) {
			pvc.Annotations = map[string]string{AnnCreatedForDataVolume: "dv-uid"}
		}), cdiConfig(ClaimAdoptionGate)}, uid, exists},
		{"no CDIConfig to ask", []client.Object{existingClaim(nil)}, nil,
			badRequest(`error getting CDIConfig: cdiconfigs.cdi.kubevirt.io "config" not found`)},
	}
	for _, c := range cases {
		v, _ := apiValidator(t, nil, c.objs...)
		resp := v.Handle(context.Background(), request(t, admissionv1.Create, newDV(c.edit), nil))
		requireResponse(t, c.want, resp, c.name)
	}
	v, _ := apiValidator(t, nil, existingClaim(nil), cdiConfig())
	dv := newDV(nil)
	requireResponse(t, allowed, v.Handle(context.Background(), request(t, admissionv1.Update, dv, dv)), "only creates are checked")
}
