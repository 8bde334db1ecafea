package networkaddonsconfig

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/networkaddons/bridgemarker"
	"github.com/virtflow/virtflow/operators/networkaddons/multus"
)

var nodeInstall = Install{Namespace: ns, Image: "img", MultusImage: "virtflow.local/multus:v4.2.2", LinuxBridgeImage: "lb",
	CNIBinDir: "/data/node/cni/bin", CNIConfDir: "/data/node/cni/net.d"}

func renderNet(t *testing.T, in Install, name string) []client.Object {
	t.Helper()
	objs, err := in.Render(context.Background(), nil, nac(map[string]any{}), name)
	require.NoError(t, err)
	return objs
}

func hostPaths(spec corev1.PodSpec) map[string]string {
	out := map[string]string{}
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			out[v.Name] = v.HostPath.Path
		}
	}
	return out
}

func mounts(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, m := range c.VolumeMounts {
		out[m.Name] = m.MountPath
	}
	return out
}

// nodeComponents run on every node.
var nodeComponents = []string{Multus, LinuxBridge, BridgeMarker}

func TestEveryComponentIsBuiltAndRendersItsWorkloadFirst(t *testing.T) {
	for _, name := range nodeComponents {
		_, ok := renderNet(t, nodeInstall, name)[0].(*appsv1.DaemonSet)
		assert.True(t, ok, "%s: its DaemonSet's readiness is the component's", name)
	}
	for _, name := range []string{KubeMacPool, KubevirtIpamController} {
		_, ok := renderNet(t, nodeInstall, name)[0].(*appsv1.Deployment)
		assert.True(t, ok, "%s: its Deployment's readiness is the component's", name)
	}
	assert.Len(t, Components, len(nodeComponents)+2, "every component is checked here")
}

func TestMultusInstallsThePluginAndWritesTheConfOnTheNodesPaths(t *testing.T) {
	objs := renderNet(t, nodeInstall, Multus)
	ds := objs[0].(*appsv1.DaemonSet)
	assert.Equal(t, Multus, ds.Name)
	spec := ds.Spec.Template.Spec
	assert.True(t, spec.HostNetwork)
	assert.Equal(t, Multus, spec.ServiceAccountName)
	assert.Equal(t, map[string]string{"cni": "/data/node/cni/net.d", "cnibin": "/data/node/cni/bin"}, hostPaths(spec))
	require.Len(t, spec.InitContainers, 1)
	install := spec.InitContainers[0]
	assert.Equal(t, "virtflow.local/multus:v4.2.2", install.Image)
	assert.Equal(t, "/data/node/cni/bin", mounts(install)["cnibin"], "same path inside and out")
	script := install.Command[len(install.Command)-1]
	assert.Contains(t, script, MultusBinarySource)
	assert.Contains(t, script, "mv -f /data/node/cni/bin/.multus.new /data/node/cni/bin/multus")
	c := spec.Containers[0]
	assert.Equal(t, []string{"/usr/bin/virtflow", "multus", "--cni-conf-dir=/data/node/cni/net.d", "--cni-bin-dir=/data/node/cni/bin"}, c.Command)
	assert.Equal(t, "/data/node/cni/net.d", mounts(c)["cni"], "the conf names host paths")
	assert.Equal(t, []string{"/usr/bin/test", "-s", "/data/node/cni/net.d/" + multus.ConfFile}, c.ReadinessProbe.Exec.Command)
	assert.Empty(t, c.Ports, "on the host's network it binds nothing")
	assert.NotContains(t, hostPaths(spec), "hostroot", "no more of the host than its CNI directories")
}

func TestMultusDefaultsToUpstreamsDirectories(t *testing.T) {
	ds := renderNet(t, Install{Namespace: ns, Image: "img"}, Multus)[0].(*appsv1.DaemonSet)
	assert.Equal(t, map[string]string{"cni": "/etc/cni/net.d", "cnibin": "/opt/cni/bin"}, hostPaths(ds.Spec.Template.Spec))
}

func TestMultusInstallsTheNADCRD(t *testing.T) {
	crd := find[*apiextensionsv1.CustomResourceDefinition](t, renderNet(t, nodeInstall, Multus), NADCRD)
	assert.Equal(t, "k8s.cni.cncf.io", crd.Spec.Group)
	assert.Equal(t, apiextensionsv1.NamespaceScoped, crd.Spec.Scope)
	assert.Equal(t, "NetworkAttachmentDefinition", crd.Spec.Names.Kind)
	assert.Equal(t, []string{"nad", "net-attach-def"}, crd.Spec.Names.ShortNames)
	require.Len(t, crd.Spec.Versions, 1)
	v := crd.Spec.Versions[0]
	assert.Equal(t, "v1", v.Name)
	assert.True(t, v.Served && v.Storage)
	assert.Equal(t, "string", v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["config"].Type)
}

func TestMultusRoleIsUpstreamsNarrowed(t *testing.T) {
	objs := renderNet(t, nodeInstall, Multus)
	role := find[*rbacv1.ClusterRole](t, objs, Multus)
	assert.Contains(t, role.Rules, rbacv1.PolicyRule{APIGroups: []string{"k8s.cni.cncf.io"}, Resources: []string{"network-attachment-definitions"}, Verbs: []string{"get", "list", "watch"}})
	assert.Contains(t, role.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "pods/status"}, Verbs: []string{"get", "list", "update", "patch"}})
	for _, r := range role.Rules {
		assert.NotContains(t, r.Verbs, "*")
		assert.NotContains(t, r.Verbs, "delete")
	}
	b := find[*rbacv1.ClusterRoleBinding](t, objs, Multus)
	assert.Equal(t, Multus, b.RoleRef.Name)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: Multus}}, b.Subjects)
	find[*corev1.ServiceAccount](t, objs, Multus)
}

func TestLinuxBridgeInstallsTheCNVPlugins(t *testing.T) {
	objs := renderNet(t, nodeInstall, LinuxBridge)
	require.Len(t, objs, 1, "no API access, no identity")
	assert.False(t, *objs[0].(*appsv1.DaemonSet).Spec.Template.Spec.AutomountServiceAccountToken, "no token either")
	ds := objs[0].(*appsv1.DaemonSet)
	assert.Equal(t, LinuxBridgePlugin, ds.Name)
	spec := ds.Spec.Template.Spec
	assert.False(t, spec.HostNetwork)
	assert.Equal(t, "/data/node/cni/bin", hostPaths(spec)["cnibin"])
	c := spec.Containers[0]
	assert.Equal(t, "lb", c.Image)
	assert.Equal(t, pluginMount, mounts(c)["cnibin"])
	script := c.Command[len(c.Command)-1]
	for _, p := range []string{"bridge", "tuning"} {
		assert.Contains(t, script, PluginSourceDir+"/"+p)
		assert.Contains(t, script, `"${cni_mount_dir}/cnv-`+p+`"`)
		assert.Contains(t, script, `ln -sfn "${host_dir}/cnv-`+p+`" "${cni_mount_dir}/`+p+`"`)
	}
	assert.Contains(t, script, "host_dir=/data/node/cni/bin", "links name the host's path")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(script), "exec sleep infinity"))
	assert.Contains(t, c.ReadinessProbe.Exec.Command[2], "test -x /opt/cni/bin/cnv-bridge && test -x /opt/cni/bin/cnv-tuning")
	assert.False(t, c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged)
}

func TestBridgeMarkerRunsOnTheNodesNetworkWithUpstreamsRole(t *testing.T) {
	objs := renderNet(t, nodeInstall, BridgeMarker)
	ds := objs[0].(*appsv1.DaemonSet)
	assert.Equal(t, BridgeMarker, ds.Name)
	spec := ds.Spec.Template.Spec
	assert.True(t, spec.HostNetwork, "the node's bridges are in the node's namespace")
	assert.Empty(t, hostPaths(spec))
	c := spec.Containers[0]
	assert.Equal(t, []string{"/usr/bin/virtflow", "bridge-marker", "--node-name=$(NODE_NAME)", "--health-probe-port=8081"}, c.Command)
	assert.Equal(t, int32(bridgemarker.HealthPort), c.Ports[0].ContainerPort)
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	assert.True(t, *c.SecurityContext.RunAsNonRoot)
	role := find[*rbacv1.ClusterRole](t, objs, BridgeMarkerRole)
	assert.Equal(t, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, Verbs: []string{"get", "update", "patch"}}}, role.Rules)
	b := find[*rbacv1.ClusterRoleBinding](t, objs, BridgeMarkerBinding)
	assert.Equal(t, BridgeMarkerRole, b.RoleRef.Name)
	find[*corev1.ServiceAccount](t, objs, BridgeMarker)
}

func TestEveryNodeComponentToleratesEveryTaint(t *testing.T) {
	for _, name := range nodeComponents {
		ds := renderNet(t, nodeInstall, name)[0].(*appsv1.DaemonSet)
		assert.Equal(t, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, ds.Spec.Template.Spec.Tolerations, name)
		assert.Subset(t, ds.Spec.Template.Labels, ds.Spec.Selector.MatchLabels, "%s selects its own pods", name)
	}
}
