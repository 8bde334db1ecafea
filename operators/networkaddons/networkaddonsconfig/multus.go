package networkaddonsconfig

import (
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operators/networkaddons/multus"
	"github.com/virtflow/virtflow/wire/cniimage"
)

// Names of Multus's objects, as upstream's cluster-network-addons-operator
// creates them.
const (
	// Multus is the component's name in the CR's conditions, and the name
	// of its DaemonSet, ServiceAccount, ClusterRole and binding.
	Multus = "multus"
	// NADCRD is the NetworkAttachmentDefinition CRD.
	NADCRD = "network-attachment-definitions.k8s.cni.cncf.io"
	// MultusBinarySource is where the Multus image keeps the thin plugin.
	MultusBinarySource = cniimage.MultusBinary
)

func multusLabels() map[string]string {
	return map[string]string{"tier": "node", "app": "multus", "name": "multus",
		"app.kubernetes.io/managed-by": "cnao-operator", "app.kubernetes.io/component": "network"}
}

func multusSelector() map[string]string { return map[string]string{"name": "kube-multus-ds-amd64"} }

// multus is Multus: its DaemonSet first (whose readiness is the
// component's), the NetworkAttachmentDefinition CRD and its identity.
func (in Install) multus() []client.Object {
	objs := []client.Object{in.multusDaemonSet(), NetworkAttachmentDefinitionCRD()}
	return append(objs, MultusRBAC(in.Namespace)...)
}

// MultusAccess is upstream's multus role, narrowed to what the thin plugin
// does: it reads NetworkAttachmentDefinitions, reads a pod and writes its
// network-status annotation, and records events about it.
func MultusAccess() workloads.Access {
	return workloads.Access{Role: Multus, Cluster: []rbacv1.PolicyRule{
		workloads.Rule("k8s.cni.cncf.io", workloads.Read, "network-attachment-definitions"),
		workloads.Rule("", []string{"get", "list", "update", "patch"}, "pods", "pods/status"),
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: workloads.Record},
	}}
}

// MultusRBAC is multus's ServiceAccount, ClusterRole and binding in ns.
func MultusRBAC(ns string) []client.Object {
	return workloads.Identity(ns, Multus, MultusAccess(), multusLabels())
}

// multusDaemonSet installs the thin plugin on every node (the init
// container, from the Multus image) and keeps its configuration and
// kubeconfig there (`virtflow multus`, from the operator's image). Both
// host directories are mounted at their own paths: the files written name
// them, and the node's container runtime reads them there.
func (in Install) multusDaemonSet() *appsv1.DaemonSet {
	bin, conf := in.cniBinDir(), in.cniConfDir()
	install := corev1.Container{
		Name: "install-multus-binary", Image: in.MultusImage, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:                  []string{"/bin/sh", "-ce", copyScript(MultusBinarySource, bin, "multus")},
		SecurityContext:          rootInPod(),
		VolumeMounts:             []corev1.VolumeMount{{Name: "cnibin", MountPath: bin}},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}
	c := workloads.Container(in.Image, "kube-multus", "multus", []string{"--cni-conf-dir=" + conf, "--cni-bin-dir=" + bin})
	c.Ports, c.SecurityContext = nil, rootInPod()
	// Ready once the node's configuration delegates through Multus.
	c.ReadinessProbe = &corev1.Probe{PeriodSeconds: 2, ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{
		Command: []string{"/usr/bin/test", "-s", filepath.Join(conf, multus.ConfFile)},
	}}}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "cni", MountPath: conf}}
	ds := daemonSet(in.Namespace, Multus, multusLabels(), multusSelector(), c, workloads.HostDir("cni", conf), workloads.HostDir("cnibin", bin))
	spec := &ds.Spec.Template.Spec
	spec.InitContainers, spec.ServiceAccountName, spec.HostNetwork = []corev1.Container{install}, Multus, true
	spec.PriorityClassName = "system-cluster-critical"
	// It removes its configuration when it stops; a short grace suffices.
	spec.TerminationGracePeriodSeconds = ptr.To(int64(10))
	return ds
}

// copyScript puts src in dir as name without a window where a half-copied
// binary could be run: copied aside, then renamed.
func copyScript(src, dir, name string) string {
	tmp := filepath.Join(dir, "."+name+".new")
	return "cp -f " + src + " " + tmp + " && mv -f " + tmp + " " + filepath.Join(dir, name)
}

// rootInPod writes the node's root-owned CNI directories, with no other
// privilege: no capabilities beyond the runtime's defaults, no escalation.
func rootInPod() *corev1.SecurityContext {
	return &corev1.SecurityContext{RunAsUser: ptr.To(int64(0)), AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true)}
}

// daemonSet runs c on every node, whatever its taints: a node whose pods
// could not reach their networks would be no node for VMs.
func daemonSet(ns, name string, labels, selector map[string]string, c corev1.Container, vols ...corev1.Volume) *appsv1.DaemonSet {
	tmpl := map[string]string{}
	for k, v := range labels {
		tmpl[k] = v
	}
	for k, v := range selector {
		tmpl[k] = v
	}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: tmpl},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{c}, Volumes: vols,
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				},
			},
		},
	}
}

// NetworkAttachmentDefinitionCRD is the Network Plumbing Working Group's
// CRD as upstream installs it: k8s.cni.cncf.io/v1, namespaced, its spec a
// CNI configuration in a string.
func NetworkAttachmentDefinitionCRD() *apiextensionsv1.CustomResourceDefinition {
	str := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "string", Description: desc}
	}
	schema := &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Description: "NetworkAttachmentDefinition is a CRD schema specified by the Network Plumbing Working Group to express the intent for attaching pods to one or more logical or physical networks. " +
			"More information available at: https://github.com/k8snetworkplumbingwg/multi-net-spec",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": str("APIVersion defines the versioned schema of this representation of an object."),
			"kind":       str("Kind is a string value representing the REST resource this object represents."),
			"metadata":   {Type: "object"},
			"spec": {Type: "object", Description: "NetworkAttachmentDefinition spec defines the desired state of a network attachment",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"config": str("NetworkAttachmentDefinition config is a JSON-formatted CNI configuration"),
				}},
		},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: NADCRD},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "k8s.cni.cncf.io", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "network-attachment-definitions", Singular: "network-attachment-definition",
				Kind: "NetworkAttachmentDefinition", ListKind: "NetworkAttachmentDefinitionList",
				ShortNames: []string{"nad", "net-attach-def"},
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema},
			}},
		},
	}
}
