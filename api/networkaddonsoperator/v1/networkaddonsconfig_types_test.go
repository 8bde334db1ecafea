package v1

import (
	"fmt"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// upstreamNetworkAddonsConfig follows the upstream README and OLM example,
// plus a status block as the upstream operator writes it.
const upstreamNetworkAddonsConfig = `
apiVersion: networkaddonsoperator.network.kubevirt.io/v1
kind: NetworkAddonsConfig
metadata:
  name: cluster
spec:
  multus: {}
  multusDynamicNetworks:
    hostCRISocketPath: /run/containerd/containerd.sock
  linuxBridge: {}
  kubeMacPool:
    rangeStart: "02:00:00:00:00:00"
    rangeEnd: "FD:FF:FF:FF:FF:FF"
  ovs: {}
  macvtap:
    devicePluginConfig: macvtap-deviceplugin-config
  kubeSecondaryDNS:
    domain: vm.example.com
    nameServerIP: 192.0.2.53
  kubevirtIpamController:
    defaultNetworkNADNamespace: openshift-ovn-kubernetes
  imagePullPolicy: IfNotPresent
  selfSignConfiguration:
    caRotateInterval: 168h
    caOverlapInterval: 24h
    certRotateInterval: 24h
    certOverlapInterval: 8h
  placementConfiguration:
    infra:
      nodeSelector:
        node-role.kubernetes.io/control-plane: ""
      tolerations:
      - key: node-role.kubernetes.io/control-plane
        operator: Exists
        effect: NoSchedule
    workloads:
      nodeSelector:
        kubernetes.io/os: linux
  tlsSecurityProfile:
    type: Intermediate
    intermediate: {}
status:
  operatorVersion: 0.99.0
  observedVersion: 0.99.0
  targetVersion: 0.99.0
  conditions:
  - type: Available
    status: "True"
    reason: AsExpected
    lastHeartbeatTime: "2024-05-01T10:00:00Z"
    lastTransitionTime: "2024-05-01T09:00:00Z"
  containers:
  - parentKind: DaemonSet
    parentName: kube-cni-linux-bridge-plugin
    name: cni-plugins
    image: quay.io/kubevirt/cni-default-plugins:v1.0.0
`

func TestNetworkAddonsConfigDecodesUpstreamManifest(t *testing.T) {
	var nac NetworkAddonsConfig
	require.NoError(t, yaml.UnmarshalStrict([]byte(upstreamNetworkAddonsConfig), &nac))

	require.Equal(t, NetworkAddonsConfigName, nac.Name)
	s := nac.Spec
	require.NotNil(t, s.Multus, "an empty object must still request Multus")
	require.NotNil(t, s.LinuxBridge)
	require.NotNil(t, s.Ovs)
	require.Nil(t, s.NMState)
	require.Equal(t, "/run/containerd/containerd.sock", s.MultusDynamicNetworks.HostCRISocketPath)
	require.Equal(t, "02:00:00:00:00:00", s.KubeMacPool.RangeStart)
	require.Equal(t, "FD:FF:FF:FF:FF:FF", s.KubeMacPool.RangeEnd)
	require.Equal(t, "macvtap-deviceplugin-config", s.MacvtapCni.DevicePluginConfig)
	require.Equal(t, "vm.example.com", s.KubeSecondaryDNS.Domain)
	require.Equal(t, "192.0.2.53", s.KubeSecondaryDNS.NameServerIP)
	require.Equal(t, "openshift-ovn-kubernetes", s.KubevirtIpamController.DefaultNetworkNADNamespace)
	require.Equal(t, corev1.PullIfNotPresent, s.ImagePullPolicy)
	require.Equal(t, "168h", s.SelfSignConfiguration.CARotateInterval)
	require.Equal(t, "8h", s.SelfSignConfiguration.CertOverlapInterval)
	require.Contains(t, s.PlacementConfiguration.Infra.NodeSelector, "node-role.kubernetes.io/control-plane")
	require.Equal(t, corev1.TolerationOpExists, s.PlacementConfiguration.Infra.Tolerations[0].Operator)
	require.Equal(t, "linux", s.PlacementConfiguration.Workloads.NodeSelector["kubernetes.io/os"])
	require.Equal(t, ocpconfigv1.TLSProfileIntermediateType, s.TLSSecurityProfile.Type)
	require.NotNil(t, s.TLSSecurityProfile.Intermediate)

	st := nac.Status
	require.Equal(t, "0.99.0", st.ObservedVersion)
	require.Equal(t, "0.99.0", st.TargetVersion)
	require.Equal(t, conditionsv1.ConditionAvailable, st.Conditions[0].Type)
	require.Equal(t, corev1.ConditionTrue, st.Conditions[0].Status)
	require.Equal(t, 10, st.Conditions[0].LastHeartbeatTime.UTC().Hour())
	require.Equal(t, "kube-cni-linux-bridge-plugin", st.Containers[0].ParentName)
	require.Equal(t, "quay.io/kubevirt/cni-default-plugins:v1.0.0", st.Containers[0].Image)

	requireRoundTrip(t, upstreamNetworkAddonsConfig, nac.DeepCopy())

	out, err := yaml.Marshal(nac.DeepCopy())
	require.NoError(t, err)
	var generic map[string]any
	require.NoError(t, yaml.Unmarshal(out, &generic))
	spec := generic["spec"].(map[string]any)
	require.Contains(t, spec, "macvtap")
	require.Equal(t, map[string]any{}, spec["multus"], "presence markers must survive a round trip")
	require.Equal(t, "FD:FF:FF:FF:FF:FF", spec["kubeMacPool"].(map[string]any)["rangeEnd"])
}

func TestNetworkAddonsConfigRegistersInScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, AddToScheme(scheme))
	obj, err := scheme.New(GroupVersion.WithKind("NetworkAddonsConfig"))
	require.NoError(t, err)
	require.IsType(t, &NetworkAddonsConfig{}, obj)
	require.Equal(t, "networkaddonsoperator.network.kubevirt.io", GroupVersion.Group)
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
