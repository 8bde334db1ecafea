package operands

import (
	corev1 "k8s.io/api/core/v1"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	nacv1 "github.com/virtflow/virtflow/api/networkaddonsoperator/v1"
	"github.com/virtflow/virtflow/contracts/hco"
)

// NetworkAddonsName is the singleton NetworkAddonsConfig.
const NetworkAddonsName = "cluster"

func desiredNetworkAddons(hc *hcov1beta1.HyperConverged) *nacv1.NetworkAddonsConfig {
	caDur, caRenew, srvDur, srvRenew := certDurations(hc)
	nac := &nacv1.NetworkAddonsConfig{
		ObjectMeta: componentMeta(hc, NetworkAddonsName, "", "network"),
		Spec: nacv1.NetworkAddonsConfigSpec{
			Multus:                 &nacv1.Multus{},
			LinuxBridge:            &nacv1.LinuxBridge{},
			KubeMacPool:            &nacv1.KubeMacPool{},
			KubevirtIpamController: &nacv1.KubevirtIpamController{},
			ImagePullPolicy:        corev1.PullIfNotPresent,
			SelfSignConfiguration: &nacv1.SelfSignConfiguration{
				CARotateInterval: caDur.Duration.String(), CAOverlapInterval: caRenew.Duration.String(),
				CertRotateInterval: srvDur.Duration.String(), CertOverlapInterval: srvRenew.Duration.String(),
			},
			PlacementConfiguration: &nacv1.PlacementConfiguration{
				Infra: nacPlacement(hc.Spec.Infra), Workloads: nacPlacement(hc.Spec.Workloads),
			},
		},
	}
	if mp := hc.Spec.KubeMacPoolConfiguration; mp != nil {
		nac.Spec.KubeMacPool.RangeStart, nac.Spec.KubeMacPool.RangeEnd = deref(mp.RangeStart), deref(mp.RangeEnd)
	}
	if isTrue(hc.Spec.FeatureGates.DeployKubeSecondaryDNS) {
		nac.Spec.KubeSecondaryDNS = &nacv1.KubeSecondaryDNS{NameServerIP: deref(hc.Spec.KubeSecondaryDNSNameServerIP)}
	}
	nac.SetGroupVersionKind(nacv1.GroupVersion.WithKind(hco.KindNetworkAddonsConfig))
	return nac
}

func nacPlacement(c hcov1beta1.HyperConvergedConfig) *nacv1.Placement {
	if c.NodePlacement == nil {
		return nil
	}
	np := c.NodePlacement.DeepCopy()
	p := &nacv1.Placement{NodeSelector: np.NodeSelector, Tolerations: np.Tolerations}
	if np.Affinity != nil {
		p.Affinity = *np.Affinity
	}
	return p
}
