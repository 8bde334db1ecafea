package operands

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sdkapi "kubevirt.io/controller-lifecycle-operator-sdk/api"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
)

// SSPName is the SSP CR HCO creates.
const SSPName = "ssp-kubevirt-hyperconverged"

// defaultCommonTemplatesNamespace is where common templates go unless the
// HyperConverged names another namespace.
const defaultCommonTemplatesNamespace = "openshift"

func desiredSSP(hc *hcov1beta1.HyperConverged) *sspv1beta3.SSP {
	ns := defaultCommonTemplatesNamespace
	if hc.Spec.CommonTemplatesNamespace != nil {
		ns = *hc.Spec.CommonTemplatesNamespace
	}
	replicas := int32(2)
	ssp := &sspv1beta3.SSP{
		ObjectMeta: componentMeta(hc, SSPName, hc.Namespace, "schedule"),
		Spec: sspv1beta3.SSPSpec{
			CommonTemplates: sspv1beta3.CommonTemplates{
				Namespace: ns,
				// Conditions stay in the HyperConverged's status; SSP needs
				// only the templates, so no time is stamped here.
				DataImportCronTemplates: sspDataImportCronTemplates(hc, DataImportCronTemplates(hc, metav1.Time{})),
			},
			TemplateValidator: &sspv1beta3.TemplateValidator{
				Replicas:  &replicas,
				Placement: placementPtr(sdkPlacement(hc.Spec.Infra)),
			},
		},
	}
	if v := hc.Spec.DeployVMConsoleProxy; v != nil {
		ssp.Spec.TokenGenerationService = &sspv1beta3.TokenGenerationService{Enabled: *v}
	}
	// SSP's API has no field for it: the templates' DataSources and the
	// common boot sources go where the HyperConverged says.
	ssp.Annotations = map[string]string{BootImageNamespaceAnnotation: BootImageNamespace(hc)}
	ssp.SetGroupVersionKind(sspv1beta3.GroupVersion.WithKind(hco.KindSSP))
	return ssp
}

// BootImageNamespaceAnnotation on the SSP CR names the boot-image
// namespace (the HyperConverged's commonBootImageNamespace, else
// DefaultBootImageNamespace).
const BootImageNamespaceAnnotation = "ssp.virtflow.io/boot-image-namespace"

// placementPtr leaves placement unset when the HyperConverged sets none, so
// an empty object is not written and then read back as drift.
func placementPtr(p sdkapi.NodePlacement) *sdkapi.NodePlacement {
	if p.NodeSelector == nil && p.Affinity == nil && p.Tolerations == nil {
		return nil
	}
	return &p
}
