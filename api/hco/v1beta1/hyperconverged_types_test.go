package v1beta1

import (
	"fmt"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// upstreamHyperConverged is written the way upstream documentation and
// must-gather output spell a HyperConverged CR, including its quirks (the
// capitalised CommonInstancetypesDeployment key, deprecated gates).
const upstreamHyperConverged = `
apiVersion: hco.kubevirt.io/v1beta1
kind: HyperConverged
metadata:
  name: kubevirt-hyperconverged
  namespace: openshift-cnv
spec:
  featureGates:
    downwardMetrics: true
    deployKubeSecondaryDNS: false
    disableMDevConfiguration: false
    persistentReservation: true
    alignCPUs: false
    enableMultiArchBootImageImport: true
    decentralizedLiveMigration: true
    declarativeHotplugVolumes: false
    videoConfig: true
    objectGraph: true
    incrementalBackup: false
    containerPathVolumes: false
    nonRoot: true
  liveMigrationConfig:
    parallelMigrationsPerCluster: 7
    parallelOutboundMigrationsPerNode: 3
    bandwidthPerMigration: 64Mi
    completionTimeoutPerGiB: 800
    progressTimeout: 200
    network: migration-net
    allowAutoConverge: true
    allowPostCopy: false
  infra:
    nodePlacement:
      nodeSelector:
        node-role.kubernetes.io/infra: ""
      tolerations:
      - key: infra
        operator: Exists
        effect: NoSchedule
  workloads:
    nodePlacement:
      nodeSelector:
        kubevirt.io/schedulable: "true"
  certConfig:
    ca:
      duration: 48h0m0s
      renewBefore: 24h0m0s
    server:
      duration: 24h0m0s
      renewBefore: 12h0m0s
  resourceRequirements:
    vmiCPUAllocationRatio: 8
  scratchSpaceStorageClass: fast-ssd
  storageImport:
    insecureRegistries:
    - registry.lab:5000
  workloadUpdateStrategy:
    workloadUpdateMethods:
    - LiveMigrate
    - Evict
    batchEvictionSize: 10
    batchEvictionInterval: 1m0s
  dataImportCronTemplates:
  - metadata:
      name: custom-fedora
      annotations:
        cdi.kubevirt.io/storage.bind.immediate.requested: "true"
    spec:
      schedule: "0 */12 * * *"
      managedDataSource: custom-fedora
      garbageCollect: Outdated
      importsToKeep: 2
      template:
        spec:
          source:
            registry:
              url: docker://quay.io/containerdisks/fedora:latest
              pullMethod: node
          storage:
            resources:
              requests:
                storage: 30Gi
  enableCommonBootImageImport: false
  commonTemplatesNamespace: vm-templates
  virtualMachineOptions:
    disableFreePageReporting: true
    disableSerialConsoleLog: false
  evictionStrategy: LiveMigrateIfPossible
  vmStateStorageClass: tpm-store
  uninstallStrategy: RemoveWorkloads
  logVerbosityConfig:
    kubevirt:
      virtHandler: 4
      nodeVerbosity:
        worker-0: 6
    cdi: 3
  defaultCPUModel: Haswell-noTSX
  defaultRuntimeClass: kata
  obsoleteCPUs:
    cpuModels:
    - Penryn
  CommonInstancetypesDeployment:
    enabled: false
  higherWorkloadDensity:
    memoryOvercommitPercentage: 150
  filesystemOverhead:
    global: "0.08"
    storageClass:
      nfs: "0.1"
  permittedHostDevices:
    pciHostDevices:
    - pciDeviceSelector: 10DE:1EB8
      resourceName: nvidia.com/TU104GL_Tesla_T4
    mediatedDevices:
    - mdevNameSelector: GRID T4-2Q
      resourceName: nvidia.com/GRID_T4-2Q
  mediatedDevicesConfiguration:
    mediatedDeviceTypes:
    - nvidia-231
  tuningPolicy: annotation
  applicationAwareConfig:
    vmiCalcConfigName: VirtualResources
    allowApplicationAwareClusterResourceQuota: true
  ksmConfiguration:
    nodeLabelSelector:
      matchLabels:
        ksm: "on"
  networkBinding:
    passt:
      sidecarImage: quay.io/kubevirt/passt-binding:latest
      networkAttachmentDefinition: default/passt
      migration:
        method: link-refresh
  liveUpdateConfiguration:
    maxHotplugRatio: 4
    maxCpuSockets: 8
    maxGuest: 64Gi
  kubeMacPoolConfiguration:
    rangeStart: "02:00:00:00:00:00"
    rangeEnd: "02:FF:FF:FF:FF:FF"
  tlsSecurityProfile:
    type: Custom
    custom:
      ciphers:
      - ECDHE-RSA-AES128-GCM-SHA256
      minTLSVersion: VersionTLS12
status:
  observedGeneration: 4
  systemHealthStatus: healthy
  dataImportSchedule: "17 3/12 * * *"
  infrastructureHighlyAvailable: true
  conditions:
  - type: Available
    status: "True"
    reason: ReconcileCompleted
    message: Reconcile completed successfully
    lastTransitionTime: "2024-01-01T00:00:00Z"
  versions:
  - name: operator
    version: 1.16.0
  relatedObjects:
  - kind: KubeVirt
    name: kubevirt-kubevirt-hyperconverged
    namespace: openshift-cnv
  nodeInfo:
    workloadsArchitectures:
    - amd64
    - arm64
  dataImportCronTemplates:
  - metadata:
      name: centos-stream9-image-cron
    status:
      commonTemplate: true
      originalSupportedArchitectures: amd64,arm64
`

func TestHyperConvergedDecodesUpstreamManifest(t *testing.T) {
	var hc HyperConverged
	require.NoError(t, yaml.UnmarshalStrict([]byte(upstreamHyperConverged), &hc))

	require.Equal(t, HyperConvergedName, hc.Name)

	fg := hc.Spec.FeatureGates
	require.True(t, *fg.DownwardMetrics)
	require.True(t, *fg.PersistentReservation)
	require.True(t, *fg.EnableMultiArchBootImageImport)
	require.True(t, *fg.VideoConfig)
	require.True(t, *fg.ObjectGraph)
	require.False(t, *fg.DeclarativeHotplugVolumes)
	require.True(t, *fg.NonRoot)

	lm := hc.Spec.LiveMigrationConfig
	require.EqualValues(t, 7, *lm.ParallelMigrationsPerCluster)
	require.EqualValues(t, 3, *lm.ParallelOutboundMigrationsPerNode)
	require.Equal(t, "64Mi", *lm.BandwidthPerMigration)
	require.EqualValues(t, 800, *lm.CompletionTimeoutPerGiB)
	require.EqualValues(t, 200, *lm.ProgressTimeout)
	require.Equal(t, "migration-net", *lm.Network)
	require.True(t, *lm.AllowAutoConverge)
	require.False(t, *lm.AllowPostCopy)

	require.Contains(t, hc.Spec.Infra.NodePlacement.NodeSelector, "node-role.kubernetes.io/infra")
	require.Equal(t, corev1.TaintEffectNoSchedule, hc.Spec.Infra.NodePlacement.Tolerations[0].Effect)
	require.Equal(t, "true", hc.Spec.Workloads.NodePlacement.NodeSelector["kubevirt.io/schedulable"])

	require.Equal(t, "48h0m0s", hc.Spec.CertConfig.CA.Duration.Duration.String())
	require.Equal(t, "12h0m0s", hc.Spec.CertConfig.Server.RenewBefore.Duration.String())
	require.Equal(t, 8, *hc.Spec.ResourceRequirements.VmiCPUAllocationRatio)
	require.Equal(t, "fast-ssd", *hc.Spec.ScratchSpaceStorageClass)
	require.Equal(t, []string{"registry.lab:5000"}, hc.Spec.StorageImport.InsecureRegistries)

	wus := hc.Spec.WorkloadUpdateStrategy
	require.Equal(t, []string{"LiveMigrate", "Evict"}, wus.WorkloadUpdateMethods)
	require.Equal(t, 10, *wus.BatchEvictionSize)
	require.Equal(t, "1m0s", wus.BatchEvictionInterval.Duration.String())

	dic := hc.Spec.DataImportCronTemplates[0]
	require.Equal(t, "custom-fedora", dic.Name)
	require.Equal(t, "0 */12 * * *", dic.Spec.Schedule)
	require.Equal(t, "custom-fedora", dic.Spec.ManagedDataSource)
	require.EqualValues(t, 2, *dic.Spec.ImportsToKeep)
	reg := dic.Spec.Template.Spec.Source.Registry
	require.Equal(t, "docker://quay.io/containerdisks/fedora:latest", *reg.URL)
	require.Equal(t, "node", *reg.PullMethod)
	size := dic.Spec.Template.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
	require.Equal(t, "30Gi", size.String())

	require.False(t, *hc.Spec.EnableCommonBootImageImport)
	require.Equal(t, "vm-templates", *hc.Spec.CommonTemplatesNamespace)
	require.True(t, *hc.Spec.VirtualMachineOptions.DisableFreePageReporting)
	require.Equal(t, EvictionStrategyLiveMigrateIfPossible, *hc.Spec.EvictionStrategy)
	require.Equal(t, "tpm-store", *hc.Spec.VMStateStorageClass)
	require.Equal(t, HyperConvergedUninstallStrategyRemoveWorkloads, hc.Spec.UninstallStrategy)
	require.EqualValues(t, 4, hc.Spec.LogVerbosityConfig.Kubevirt.VirtHandler)
	require.EqualValues(t, 6, hc.Spec.LogVerbosityConfig.Kubevirt.NodeVerbosity["worker-0"])
	require.EqualValues(t, 3, *hc.Spec.LogVerbosityConfig.CDI)
	require.Equal(t, "Haswell-noTSX", *hc.Spec.DefaultCPUModel)
	require.Equal(t, "kata", *hc.Spec.DefaultRuntimeClass)
	require.Equal(t, []string{"Penryn"}, hc.Spec.ObsoleteCPUs.CPUModels)
	require.False(t, *hc.Spec.CommonInstancetypesDeployment.Enabled)
	require.Equal(t, 150, hc.Spec.HigherWorkloadDensity.MemoryOvercommitPercentage)
	require.Equal(t, Percent("0.08"), hc.Spec.FilesystemOverhead.Global)
	require.Equal(t, Percent("0.1"), hc.Spec.FilesystemOverhead.StorageClass["nfs"])
	require.Equal(t, "10DE:1EB8", hc.Spec.PermittedHostDevices.PciHostDevices[0].PCIDeviceSelector)
	require.Equal(t, "GRID T4-2Q", hc.Spec.PermittedHostDevices.MediatedDevices[0].MDEVNameSelector)
	require.Equal(t, []string{"nvidia-231"}, hc.Spec.MediatedDevicesConfiguration.MediatedDeviceTypes)
	require.Equal(t, HyperConvergedAnnotationTuningPolicy, hc.Spec.TuningPolicy)
	require.Equal(t, "VirtualResources", *hc.Spec.ApplicationAwareConfig.VmiCalcConfigName)
	require.Equal(t, "on", hc.Spec.KSMConfiguration.NodeLabelSelector.MatchLabels["ksm"])
	require.Equal(t, "link-refresh", hc.Spec.NetworkBinding["passt"].Migration.Method)
	require.EqualValues(t, 8, *hc.Spec.LiveUpdateConfiguration.MaxCpuSockets)
	require.Equal(t, "64Gi", hc.Spec.LiveUpdateConfiguration.MaxGuest.String())
	require.Equal(t, "02:00:00:00:00:00", *hc.Spec.KubeMacPoolConfiguration.RangeStart)
	require.Equal(t, ocpconfigv1.TLSProfileCustomType, hc.Spec.TLSSecurityProfile.Type)
	require.Equal(t, ocpconfigv1.VersionTLS12, hc.Spec.TLSSecurityProfile.Custom.MinTLSVersion)

	st := hc.Status
	require.EqualValues(t, 4, st.ObservedGeneration)
	require.Equal(t, "healthy", st.SystemHealthStatus)
	require.Equal(t, "17 3/12 * * *", st.DataImportSchedule)
	require.True(t, *st.InfrastructureHighlyAvailable)
	require.Equal(t, ConditionAvailable, st.Conditions[0].Type)
	require.Equal(t, "1.16.0", st.Versions[0].Version)
	require.Equal(t, "KubeVirt", st.RelatedObjects[0].Kind)
	require.Equal(t, []string{"amd64", "arm64"}, st.NodeInfo.WorkloadsArchitectures)
	require.Equal(t, "centos-stream9-image-cron", st.DataImportCronTemplates[0].Name)
	require.True(t, st.DataImportCronTemplates[0].Status.CommonTemplate)
}

// TestHyperConvergedReencodesUpstreamKeys guards the JSON names on the way
// out, which strict decoding alone does not cover.
func TestHyperConvergedReencodesUpstreamKeys(t *testing.T) {
	var hc HyperConverged
	require.NoError(t, yaml.UnmarshalStrict([]byte(upstreamHyperConverged), &hc))

	requireRoundTrip(t, upstreamHyperConverged, hc.DeepCopy())

	out, err := yaml.Marshal(hc.DeepCopy())
	require.NoError(t, err)

	var generic map[string]any
	require.NoError(t, yaml.Unmarshal(out, &generic))
	spec := generic["spec"].(map[string]any)
	require.Contains(t, spec, "CommonInstancetypesDeployment")
	require.NotContains(t, spec, "commonInstancetypesDeployment")
	require.Contains(t, spec, "vmStateStorageClass")
	require.Contains(t, spec, "kubeMacPoolConfiguration")
	lm := spec["liveMigrationConfig"].(map[string]any)
	require.EqualValues(t, 7, lm["parallelMigrationsPerCluster"])
	require.EqualValues(t, 3, lm["parallelOutboundMigrationsPerNode"])
	mdc := spec["mediatedDevicesConfiguration"].(map[string]any)
	require.Contains(t, mdc, "mediatedDeviceTypes")
}

func TestHyperConvergedRegistersInScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, AddToScheme(scheme))

	obj, err := scheme.New(GroupVersion.WithKind("HyperConverged"))
	require.NoError(t, err)
	require.IsType(t, &HyperConverged{}, obj)

	_, err = scheme.New(GroupVersion.WithKind("HyperConvergedList"))
	require.NoError(t, err)
	require.Equal(t, "hco.kubevirt.io", GroupVersion.Group)
	require.Equal(t, "v1beta1", GroupVersion.Version)
}

// requireSubset fails unless every key path of want appears in got with an
// equal value. Decoding JSON into structs matches keys case-insensitively, so
// only re-encoding and comparing catches a tag whose case is wrong.
func requireSubset(t *testing.T, want, got any, path string) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		require.Truef(t, ok, "%s: expected an object, got %T", path, got)
		for k, v := range w {
			gv, found := g[k]
			require.Truef(t, found, "%s.%s missing after re-encoding", path, k)
			requireSubset(t, v, gv, path+"."+k)
		}
	case []any:
		g, ok := got.([]any)
		require.Truef(t, ok, "%s: expected a list, got %T", path, got)
		require.Lenf(t, g, len(w), "%s: list length", path)
		for i := range w {
			requireSubset(t, w[i], g[i], fmt.Sprintf("%s[%d]", path, i))
		}
	default:
		require.Equalf(t, want, got, "%s", path)
	}
}

// requireRoundTrip decodes manifest into obj's type via the generic form and
// the typed form, re-encodes the typed form and checks nothing was lost or
// renamed under spec and status.
func requireRoundTrip(t *testing.T, manifest string, obj any) {
	t.Helper()
	var want map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(manifest), &want))
	out, err := yaml.Marshal(obj)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, yaml.Unmarshal(out, &got))
	for _, section := range []string{"spec", "status"} {
		requireSubset(t, want[section], got[section], section)
	}
}
