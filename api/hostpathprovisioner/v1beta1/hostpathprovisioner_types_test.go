package v1beta1

import (
	"fmt"
	"testing"

	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// upstreamHostPathProvisioner mirrors the upstream example CR with one plain
// pool and one PVC-backed pool, plus a status block.
const upstreamHostPathProvisioner = `
apiVersion: hostpathprovisioner.kubevirt.io/v1beta1
kind: HostPathProvisioner
metadata:
  name: hostpath-provisioner
spec:
  imagePullPolicy: IfNotPresent
  featureGates:
  - Snapshotting
  storagePools:
  - name: local
    path: /var/hpvolumes
  - name: block-backed
    pvcTemplate:
      volumeMode: Block
      storageClassName: ocs-storagecluster-ceph-rbd
      accessModes:
      - ReadWriteOnce
      resources:
        requests:
          storage: 70Gi
    path: /var/hpp-block
  workload:
    nodeSelector:
      kubernetes.io/os: linux
    tolerations:
    - key: storage
      operator: Exists
status:
  operatorVersion: v1.10.0
  observedVersion: v1.10.0
  targetVersion: v1.10.0
  conditions:
  - type: Available
    status: "True"
    reason: Complete
    message: Application available
    lastHeartbeatTime: "2024-02-02T12:00:00Z"
    lastTransitionTime: "2024-02-02T11:00:00Z"
  storagePoolStatuses:
  - name: block-backed
    phase: Ready
    desiredReady: 3
    currentReady: 3
    claimStatuses:
    - name: hpp-pool-block-backed-worker-0
      status:
        phase: Bound
`

func TestHostPathProvisionerDecodesUpstreamManifest(t *testing.T) {
	var hpp HostPathProvisioner
	require.NoError(t, yaml.UnmarshalStrict([]byte(upstreamHostPathProvisioner), &hpp))

	s := hpp.Spec
	require.Equal(t, corev1.PullIfNotPresent, s.ImagePullPolicy)
	require.Equal(t, []string{"Snapshotting"}, s.FeatureGates)
	require.Len(t, s.StoragePools, 2)
	require.Equal(t, "local", s.StoragePools[0].Name)
	require.Equal(t, "/var/hpvolumes", s.StoragePools[0].Path)
	require.Nil(t, s.StoragePools[0].PVCTemplate)

	tmpl := s.StoragePools[1].PVCTemplate
	require.NotNil(t, tmpl)
	require.Equal(t, "/var/hpp-block", s.StoragePools[1].Path)
	require.Equal(t, corev1.PersistentVolumeBlock, *tmpl.VolumeMode)
	require.Equal(t, "ocs-storagecluster-ceph-rbd", *tmpl.StorageClassName)
	size := tmpl.Resources.Requests[corev1.ResourceStorage]
	require.Equal(t, "70Gi", size.String())

	require.Equal(t, "linux", s.Workload.NodeSelector["kubernetes.io/os"])
	require.Equal(t, "storage", s.Workload.Tolerations[0].Key)

	st := hpp.Status
	require.Equal(t, "v1.10.0", st.ObservedVersion)
	require.Equal(t, conditionsv1.ConditionAvailable, st.Conditions[0].Type)
	require.Equal(t, 12, st.Conditions[0].LastHeartbeatTime.UTC().Hour())
	pool := st.StoragePoolStatuses[0]
	require.Equal(t, StoragePoolReady, pool.Phase)
	require.Equal(t, 3, pool.DesiredReady)
	require.Equal(t, 3, pool.CurrentReady)
	require.Equal(t, corev1.ClaimBound, pool.ClaimStatuses[0].Status.Phase)

	requireRoundTrip(t, upstreamHostPathProvisioner, hpp.DeepCopy())

	out, err := yaml.Marshal(hpp.DeepCopy())
	require.NoError(t, err)
	var generic map[string]any
	require.NoError(t, yaml.Unmarshal(out, &generic))
	pools := generic["spec"].(map[string]any)["storagePools"].([]any)
	require.Equal(t, "/var/hpvolumes", pools[0].(map[string]any)["path"])
	require.Contains(t, pools[1].(map[string]any), "pvcTemplate")
}

func TestHostPathProvisionerRegistersInScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, AddToScheme(scheme))
	obj, err := scheme.New(GroupVersion.WithKind("HostPathProvisioner"))
	require.NoError(t, err)
	require.IsType(t, &HostPathProvisioner{}, obj)
	require.Equal(t, "hostpathprovisioner.kubevirt.io", GroupVersion.Group)
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
