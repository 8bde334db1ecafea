package networkaddonsconfig

import (
	"fmt"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/wire/cniimage"
)

// Names of the linux-bridge component's objects, upstream's.
const (
	// LinuxBridge is the component's name in the CR's conditions.
	LinuxBridge = "linux-bridge"
	// LinuxBridgePlugin is the DaemonSet that installs the plugins.
	LinuxBridgePlugin = "kube-cni-linux-bridge-plugin"
	// PluginSourceDir is where the Linux bridge image keeps the CNI
	// plugins it installs, as upstream's image does.
	PluginSourceDir = cniimage.PluginDir
)

// linuxBridgePlugins are the plugins installed, each also as cnv-<name>,
// the name HCO users write in their NetworkAttachmentDefinitions.
var linuxBridgePlugins = cniimage.LinuxBridgePlugins

// pluginMount is where the plugin installer sees the node's CNI binaries.
const pluginMount = "/opt/cni/bin"

func linuxBridgeLabels() map[string]string {
	return map[string]string{"tier": "node", "app": "cni-linux-bridge-plugin",
		"app.kubernetes.io/managed-by": "cnao-operator", "app.kubernetes.io/component": "network"}
}

// linuxBridge is upstream's kube-cni-linux-bridge-plugin: it needs no API
// access, so it mounts no token.
func (in Install) linuxBridge() []client.Object {
	c := corev1.Container{
		Name: "cni-plugins", Image: in.LinuxBridgeImage, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"/bin/bash", "-ce", pluginScript(in.cniBinDir())},
		SecurityContext: rootInPod(),
		VolumeMounts:    []corev1.VolumeMount{{Name: "cnibin", MountPath: pluginMount}, {Name: "tmp", MountPath: "/tmp"}},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("15Mi"),
		}},
		// Ready once every plugin is in place.
		ReadinessProbe: &corev1.Probe{PeriodSeconds: 2, ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{
			Command: pluginCheck(),
		}}},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}
	tmp := corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	ds := daemonSet(in.Namespace, LinuxBridgePlugin, linuxBridgeLabels(), map[string]string{"name": LinuxBridgePlugin}, c, workloads.HostDir("cnibin", in.cniBinDir()), tmp)
	ds.Spec.Template.Labels["app"] = "cni-plugins"
	ds.Spec.Template.Annotations = map[string]string{"description": "LinuxBridge installs 'bridge' CNI on cluster nodes, so it can be later used to attach Pods/VMs to Linux bridges"}
	ds.Spec.Template.Spec.PriorityClassName = "system-cluster-critical"
	ds.Spec.Template.Spec.AutomountServiceAccountToken = ptr.To(false)
	return []client.Object{ds}
}

// pluginScript installs each plugin as cnv-<name> (copied aside, then
// renamed, so a half-written plugin is never run) and, where the node has
// no <name> of its own in that directory, links <name> to it, as
// upstream's installer does. Links name the host's path: the runtime
// follows them there.
func pluginScript(hostDir string) string {
	lines := []string{"cni_mount_dir=" + pluginMount, "host_dir=" + hostDir}
	for _, p := range linuxBridgePlugins {
		lines = append(lines,
			fmt.Sprintf(`cp -f %s/%s "${cni_mount_dir}/.cnv-%s.new"`, PluginSourceDir, p, p),
			fmt.Sprintf(`mv -f "${cni_mount_dir}/.cnv-%s.new" "${cni_mount_dir}/cnv-%s"`, p, p),
			fmt.Sprintf(`if [ ! -e "${cni_mount_dir}/%s" ] || [ -L "${cni_mount_dir}/%s" ]; then ln -sfn "${host_dir}/cnv-%s" "${cni_mount_dir}/%s"; fi`, p, p, p, p))
	}
	lines = append(lines, "echo 'Entering sleep... (success)'", "exec sleep infinity")
	return strings.Join(lines, "\n") + "\n"
}

// pluginCheck passes once every cnv- plugin is an executable file.
func pluginCheck() []string {
	var tests []string
	for _, p := range linuxBridgePlugins {
		tests = append(tests, "test -x "+filepath.Join(pluginMount, "cnv-"+p))
	}
	return []string{"/bin/sh", "-c", strings.Join(tests, " && ")}
}
