package operands

import (
	"k8s.io/apimachinery/pkg/api/resource"
	kubevirtv1 "kubevirt.io/api/core/v1"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
)

// KubeVirtName is the KubeVirt CR HCO creates.
const KubeVirtName = "kubevirt-kubevirt-hyperconverged"

// hardCodedKubeVirtGates are enabled on every HCO-managed KubeVirt.
var hardCodedKubeVirtGates = []string{
	"CPUManager", "Snapshot", "ExpandDisks", "HostDevices", "VMExport", "KubevirtSeccompProfile",
	"WithHostModelCPU", "HypervStrictCheck",
}

// optionalKubeVirtGates maps a HyperConverged feature gate to the KubeVirt
// feature gate it turns on.
func optionalKubeVirtGates(fg hcov1beta1.HyperConvergedFeatureGates) []string {
	var gates []string
	for _, g := range []struct {
		on   *bool
		name string
	}{
		{fg.DownwardMetrics, "DownwardMetrics"},
		{fg.PersistentReservation, "PersistentReservation"},
		{fg.AlignCPUs, "AlignCPUs"},
		{fg.DecentralizedLiveMigration, "DecentralizedLiveMigration"},
		{fg.DeclarativeHotplugVolumes, "DeclarativeHotplugVolumes"},
		{fg.VideoConfig, "VideoConfig"},
		{fg.ObjectGraph, "ObjectGraph"},
		{fg.IncrementalBackup, "IncrementalBackup"},
		{fg.ContainerPathVolumes, "ContainerPathVolumes"},
	} {
		if isTrue(g.on) {
			gates = append(gates, g.name)
		}
	}
	// Volume hotplug is always on; the gate picks the declarative flavour.
	if !isTrue(fg.DeclarativeHotplugVolumes) {
		gates = append(gates, "HotplugVolumes")
	}
	return gates
}

func desiredKubeVirt(hc *hcov1beta1.HyperConverged) *kubevirtv1.KubeVirt {
	caDur, caRenew, srvDur, srvRenew := certDurations(hc)
	kv := &kubevirtv1.KubeVirt{
		ObjectMeta: componentMeta(hc, KubeVirtName, hc.Namespace, "compute"),
		Spec: kubevirtv1.KubeVirtSpec{
			UninstallStrategy: kubevirtv1.KubeVirtUninstallStrategyBlockUninstallIfWorkloadsExist,
			CertificateRotationStrategy: kubevirtv1.KubeVirtCertificateRotateStrategy{
				SelfSigned: &kubevirtv1.KubeVirtSelfSignConfiguration{
					CA:     &kubevirtv1.CertConfig{Duration: caDur, RenewBefore: caRenew},
					Server: &kubevirtv1.CertConfig{Duration: srvDur, RenewBefore: srvRenew},
				},
			},
			Configuration: kubevirtv1.KubeVirtConfiguration{
				DeveloperConfiguration: &kubevirtv1.DeveloperConfiguration{
					FeatureGates: append(append([]string{}, hardCodedKubeVirtGates...), optionalKubeVirtGates(hc.Spec.FeatureGates)...),
				},
				MigrationConfiguration: migrations(hc.Spec.LiveMigrationConfig),
				VMStateStorageClass:    deref(hc.Spec.VMStateStorageClass),
				DefaultRuntimeClass:    deref(hc.Spec.DefaultRuntimeClass),
			},
			WorkloadUpdateStrategy: workloadUpdates(hc.Spec.WorkloadUpdateStrategy),
			Infra:                  componentConfig(hc.Spec.Infra),
			Workloads:              componentConfig(hc.Spec.Workloads),
		},
	}
	if hc.Spec.EvictionStrategy != nil {
		es := kubevirtv1.EvictionStrategy(*hc.Spec.EvictionStrategy)
		kv.Spec.Configuration.EvictionStrategy = &es
	}
	kv.SetGroupVersionKind(kubevirtv1.GroupVersion.WithKind(hco.KindKubeVirt))
	return kv
}

// migrations copies the live-migration settings with HCO's defaults; the
// webhook has already rejected an unparsable bandwidth.
func migrations(lm hcov1beta1.LiveMigrationConfigurations) *kubevirtv1.MigrationConfiguration {
	m := &kubevirtv1.MigrationConfiguration{
		ParallelMigrationsPerCluster:      orUint32(lm.ParallelMigrationsPerCluster, 5),
		ParallelOutboundMigrationsPerNode: orUint32(lm.ParallelOutboundMigrationsPerNode, 2),
		CompletionTimeoutPerGiB:           orInt64(lm.CompletionTimeoutPerGiB, 150),
		ProgressTimeout:                   orInt64(lm.ProgressTimeout, 150),
		AllowAutoConverge:                 orBool(lm.AllowAutoConverge, false),
		AllowPostCopy:                     orBool(lm.AllowPostCopy, false),
		Network:                           lm.Network,
	}
	if lm.BandwidthPerMigration != nil {
		if q, err := resource.ParseQuantity(*lm.BandwidthPerMigration); err == nil {
			m.BandwidthPerMigration = &q
		}
	}
	return m
}

func workloadUpdates(w hcov1beta1.HyperConvergedWorkloadUpdateStrategy) kubevirtv1.KubeVirtWorkloadUpdateStrategy {
	out := kubevirtv1.KubeVirtWorkloadUpdateStrategy{
		BatchEvictionSize: w.BatchEvictionSize, BatchEvictionInterval: w.BatchEvictionInterval,
	}
	methods := w.WorkloadUpdateMethods
	if methods == nil {
		methods = []string{"LiveMigrate"}
	}
	for _, m := range methods {
		out.WorkloadUpdateMethods = append(out.WorkloadUpdateMethods, kubevirtv1.WorkloadUpdateMethod(m))
	}
	if out.BatchEvictionSize == nil {
		n := 10
		out.BatchEvictionSize = &n
	}
	if out.BatchEvictionInterval == nil {
		out.BatchEvictionInterval = orDuration(nil, "1m")
	}
	return out
}

func componentConfig(c hcov1beta1.HyperConvergedConfig) *kubevirtv1.ComponentConfig {
	if c.NodePlacement == nil {
		return nil
	}
	np := c.NodePlacement.DeepCopy()
	return &kubevirtv1.ComponentConfig{NodePlacement: &kubevirtv1.NodePlacement{
		NodeSelector: np.NodeSelector, Affinity: np.Affinity, Tolerations: np.Tolerations,
	}}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orUint32(v *uint32, def uint32) *uint32 {
	if v != nil {
		return v
	}
	return &def
}

func orInt64(v *int64, def int64) *int64 {
	if v != nil {
		return v
	}
	return &def
}

func orBool(v *bool, def bool) *bool {
	if v != nil {
		return v
	}
	return &def
}
