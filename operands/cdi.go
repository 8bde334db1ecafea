package operands

import (
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sdkapi "kubevirt.io/controller-lifecycle-operator-sdk/api"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
)

// CDIName is the CDI CR HCO creates.
const CDIName = "cdi-kubevirt-hyperconverged"

// hardCodedCDIGates are enabled on every HCO-managed CDI.
var hardCodedCDIGates = []string{"DataVolumeClaimAdoption", "HonorWaitForFirstConsumer", "WebhookPvcRendering"}

func desiredCDI(hc *hcov1beta1.HyperConverged) *cdiv1beta1.CDI {
	caDur, caRenew, srvDur, srvRenew := certDurations(hc)
	uninstall := cdiv1beta1.CDIUninstallStrategyBlockUninstallIfWorkloadsExist
	cdi := &cdiv1beta1.CDI{
		ObjectMeta: componentMeta(hc, CDIName, "", "storage"),
		Spec: cdiv1beta1.CDISpec{
			UninstallStrategy: &uninstall,
			CertConfig: &cdiv1beta1.CDICertConfig{
				CA:     &cdiv1beta1.CertConfig{Duration: caDur, RenewBefore: caRenew},
				Server: &cdiv1beta1.CertConfig{Duration: srvDur, RenewBefore: srvRenew},
			},
			Config: &cdiv1beta1.CDIConfigSpec{
				FeatureGates:             append([]string{}, hardCodedCDIGates...),
				ScratchSpaceStorageClass: hc.Spec.ScratchSpaceStorageClass,
				FilesystemOverhead:       filesystemOverhead(hc.Spec.FilesystemOverhead),
			},
			Infra:     cdiv1beta1.ComponentConfig{NodePlacement: sdkPlacement(hc.Spec.Infra)},
			Workloads: sdkPlacement(hc.Spec.Workloads),
		},
	}
	if si := hc.Spec.StorageImport; si != nil && len(si.InsecureRegistries) > 0 {
		cdi.Spec.Config.InsecureRegistries = append([]string{}, si.InsecureRegistries...)
	}
	// Tells CDI that its CDIConfig is owned by this CR, as HCO marks it.
	cdi.Annotations = map[string]string{"cdi.kubevirt.io/configAuthority": ""}
	cdi.SetGroupVersionKind(cdiv1beta1.SchemeGroupVersion.WithKind(hco.KindCDI))
	return cdi
}

func filesystemOverhead(f *hcov1beta1.FilesystemOverhead) *cdiv1beta1.FilesystemOverhead {
	if f == nil {
		return nil
	}
	out := &cdiv1beta1.FilesystemOverhead{Global: cdiv1beta1.Percent(f.Global)}
	if len(f.StorageClass) > 0 {
		out.StorageClass = map[string]cdiv1beta1.Percent{}
		for k, v := range f.StorageClass {
			out.StorageClass[k] = cdiv1beta1.Percent(v)
		}
	}
	return out
}

func sdkPlacement(c hcov1beta1.HyperConvergedConfig) sdkapi.NodePlacement {
	if c.NodePlacement == nil {
		return sdkapi.NodePlacement{}
	}
	np := c.NodePlacement.DeepCopy()
	return sdkapi.NodePlacement{NodeSelector: np.NodeSelector, Affinity: np.Affinity, Tolerations: np.Tolerations}
}
