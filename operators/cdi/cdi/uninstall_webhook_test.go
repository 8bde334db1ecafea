package cdi

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sdkapi "kubevirt.io/controller-lifecycle-operator-sdk/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

var cdisResource = metav1.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "cdis"}

func cdiCR(strategy *cdiv1.CDIUninstallStrategy, phase sdkapi.Phase) *cdiv1.CDI {
	return &cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi"},
		Spec: cdiv1.CDISpec{UninstallStrategy: strategy}, Status: cdiv1.CDIStatus{Status: sdkapi.Status{Phase: phase}}}
}

func dataVolume(name string, labels map[string]string) *cdiv1.DataVolume {
	return &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: labels}}
}

// deleteCDI reviews deleting cr, sent as the old object as the API server
// sends it, with objs stored.
func deleteCDI(t *testing.T, op admissionv1.Operation, cr *cdiv1.CDI, objs ...client.Object) admission.Response {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	raw, err := json.Marshal(cr)
	require.NoError(t, err)
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: op, Name: cr.Name,
		Resource: cdisResource, OldObject: runtime.RawExtension{Raw: raw}}}
	return (&UninstallValidator{Reader: c}).Handle(context.Background(), req)
}

func TestCDIWithDataVolumesIsNotUninstalledAsCDI(t *testing.T) {
	block := ptr.To(cdiv1.CDIUninstallStrategyBlockUninstallIfWorkloadsExist)
	resp := deleteCDI(t, admissionv1.Delete, cdiCR(block, sdkapi.PhaseDeployed), dataVolume("a", nil), dataVolume("b", nil))
	require.False(t, resp.Allowed)
	require.EqualValues(t, 400, resp.Result.Code)
	require.Equal(t, "rejecting the uninstall request, since there are still 2 DataVolumes present. "+
		"Either delete all DataVolumes or change the uninstall strategy before uninstalling CDI", resp.Result.Message)
}

func TestCDIIsUninstalledWhenNothingHoldsIt(t *testing.T) {
	block := ptr.To(cdiv1.CDIUninstallStrategyBlockUninstallIfWorkloadsExist)
	remove := ptr.To(cdiv1.CDIUninstallStrategyRemoveWorkloads)
	dv := dataVolume("a", nil)
	cron := dataVolume("cron", map[string]string{"cdi.kubevirt.io/dataImportCron": "fedora"})
	for name, c := range map[string]struct {
		cr   *cdiv1.CDI
		objs []client.Object
	}{
		"only a cron's volumes": {cdiCR(block, sdkapi.PhaseDeployed), []client.Object{cron}},
		"remove workloads":      {cdiCR(remove, sdkapi.PhaseDeployed), []client.Object{dv}},
		"no strategy":           {cdiCR(nil, sdkapi.PhaseDeployed), []client.Object{dv}},
		"never deployed":        {cdiCR(block, sdkapi.PhaseEmpty), []client.Object{dv}},
		"failed":                {cdiCR(block, sdkapi.PhaseError), []client.Object{dv}},
	} {
		require.True(t, deleteCDI(t, admissionv1.Delete, c.cr, c.objs...).Allowed, name)
	}
	require.True(t, deleteCDI(t, admissionv1.Update, cdiCR(block, sdkapi.PhaseDeployed), dv).Allowed, "only deletion is guarded")
}
