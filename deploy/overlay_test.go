package deploy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// worker finds the worker Deployment in an overlay's output.
func worker(t *testing.T, out []byte) appsv1.Deployment {
	for _, doc := range strings.Split(string(out), "\n---\n") {
		if strings.Contains(doc, "kind: Deployment") && strings.Contains(doc, "name: virtflow-worker") {
			var d appsv1.Deployment
			require.NoError(t, yaml.Unmarshal([]byte(doc), &d))
			return d
		}
	}
	t.Fatalf("no worker Deployment in:\n%s", out)
	return appsv1.Deployment{}
}

func TestEmbeddedOverlayRunsTheWorkerFromTheLocalImageAgainstTheEmbeddedTemporal(t *testing.T) {
	out, err := Overlay(EmbeddedOverlay, map[string]string{
		ComponentsTag: "0123abcd", CLIDownloadsTag: "0123abcd-beef", TemporalAddress: "10.244.0.1:7233", TemporalUI: "http://127.0.0.1:8233", KubeletRoot: "/data/kubelet", NodeDir: "/data/nodes",
		HostRoot: "/data/host", CSIProvisionerImage: "virtflow.local/csi-provisioner:v5.3.0", DomainType: `""`,
		TektonTasksImage: "virtflow.local/tekton-tasks:0a0b", TektonTasksDiskVirtImage: "virtflow.local/tekton-tasks-disk-virt:0c0d",
		CNIBinDir: "/data/node/cni/bin", CNIConfDir: "/data/node/cni/net.d", MultusImage: "virtflow.local/multus:v4.2.2",
	})
	require.NoError(t, err)
	for _, want := range []string{"kubelet-root: /data/kubelet", "node-dir: /data/nodes", "host-root: /data/host",
		"csi-provisioner-image: virtflow.local/csi-provisioner:v5.3.0", `domain-type: ""`,
		"tekton-tasks-image: virtflow.local/tekton-tasks:0a0b", "cni-bin-dir: /data/node/cni/bin", "cni-conf-dir: /data/node/cni/net.d",
		"multus-image: virtflow.local/multus:v4.2.2", "linux-bridge-image: virtflow.local/multus:v4.2.2", "--cni-conf-dir=$(CNI_CONF_DIR)", "tekton-tasks-disk-virt-image: virtflow.local/tekton-tasks-disk-virt:0c0d", "image: virtflow.local/virtflow:0123abcd\n        imagePullPolicy: IfNotPresent\n        name: virt-operator",
		"image: virtflow.local/virtctl-downloads:0123abcd-beef\n        imagePullPolicy: IfNotPresent\n        name: server"} {
		require.Contains(t, string(out), want)
	}
	d := worker(t, out)
	require.Equal(t, "kubevirt-hyperconverged", d.Namespace)
	require.Equal(t, "virtflow.local/virtflow:0123abcd", d.Spec.Template.Spec.Containers[0].Image)
	require.Contains(t, string(out), "address: 10.244.0.1:7233")
	require.Contains(t, string(out), "ui: http://127.0.0.1:8233")
	require.Contains(t, string(out), "kind: ServiceAccount\nmetadata:\n  name: console-admin\n  namespace: kubevirt-hyperconverged\n",
		"the embedded node has an admin to log in to the console with")
	require.Contains(t, string(out), "kind: ClusterRole\n", "the base brings virtflow's RBAC")
	require.NotContains(t, string(out), "kind: Kustomization")
}

func TestClusterOverlayNamesARegistryImageAndAnExternalTemporal(t *testing.T) {
	out, err := Overlay(ClusterOverlay, nil)
	require.NoError(t, err)
	require.Equal(t, "quay.io/virtflow/virtflow:v0.1.0", worker(t, out).Spec.Template.Spec.Containers[0].Image)
	require.Contains(t, string(out), "kind: CustomResourceDefinition\nmetadata:\n  name: virtualmachines.kubevirt.io",
		"the base installs the CRDs")
	require.NotContains(t, string(out), "address: "+TemporalAddress)
	require.NotContains(t, string(out), ":"+ComponentsTag)
	require.Contains(t, string(out), "image: quay.io/virtflow/virtctl-downloads:v0.1.0")
}

func TestRBACManifestsLeaveTheKustomizationOut(t *testing.T) {
	rbac, err := RBAC()
	require.NoError(t, err)
	require.NotContains(t, rbac, kustomizationFile)
	require.Contains(t, rbac, "00-namespace.yaml")
}

func TestBothOverlaysGiveSSPOperatorItsRightsInTheTasksNamespaceOnly(t *testing.T) {
	for _, name := range []string{EmbeddedOverlay, ClusterOverlay} {
		out, err := Overlay(name, map[string]string{})
		require.NoError(t, err)
		require.Contains(t, string(out), "kind: Namespace\nmetadata:\n  name: virtflow-pipelines\n", name)
		require.Contains(t, string(out), "kind: RoleBinding\nmetadata:\n  name: ssp-operator-tekton-tasks\n  namespace: virtflow-pipelines\n", name)
		require.NotContains(t, string(out), "kind: ClusterRoleBinding\nmetadata:\n  name: ssp-operator-tekton-tasks\n", name)
		require.Less(t, strings.Index(string(out), "name: virtflow-pipelines\n---"), strings.Index(string(out), "namespace: virtflow-pipelines"),
			"%s: the namespace comes before what lives in it", name)
	}
}
