package virtapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// dependencyLabel is the label upstream puts on every graph node.
const dependencyLabel = "kubevirt.io/dependency-type"

// graphKinds are the API group, kind and dependency type of each resource
// a graph may hold, as upstream names them.
var graphKinds = map[string][3]string{
	"virtualmachines":                    {"kubevirt.io", "VirtualMachine", "compute"},
	"virtualmachineinstances":            {"kubevirt.io", "VirtualMachineInstance", "compute"},
	"pods":                               {"", "Pod", "compute"},
	"virtualmachineinstancetypes":        {"instancetype.kubevirt.io", "VirtualMachineInstancetype", "config"},
	"virtualmachineclusterinstancetypes": {"instancetype.kubevirt.io", "VirtualMachineClusterInstancetype", "config"},
	"virtualmachinepreferences":          {"instancetype.kubevirt.io", "VirtualMachinePreference", "config"},
	"virtualmachineclusterpreferences":   {"instancetype.kubevirt.io", "VirtualMachineClusterPreference", "config"},
	"controllerrevisions":                {"apps", "ControllerRevision", "config"},
	"configmaps":                         {"", "ConfigMap", "config"},
	"secrets":                            {"", "Secret", "config"},
	"serviceaccounts":                    {"", "ServiceAccount", "config"},
	"datavolumes":                        {"cdi.kubevirt.io", "DataVolume", "storage"},
	"persistentvolumeclaims":             {"", "PersistentVolumeClaim", "storage"},
	"networkattachmentdefinitions":       {"k8s.cni.cncf.io", "NetworkAttachmentDefinition", "network"},
}

func graphNode(name, ns, resource string, optional bool, children ...kubevirtv1.ObjectGraphNode) kubevirtv1.ObjectGraphNode {
	k := graphKinds[resource]
	group := k[0]
	n := kubevirtv1.ObjectGraphNode{
		ObjectReference: corev1.TypedObjectReference{APIGroup: &group, Kind: k[1], Name: name, Namespace: &ns},
		Labels:          map[string]string{dependencyLabel: k[2]}, Children: children,
	}
	if optional {
		n.Optional = &optional
	}
	return n
}

// objectGraph serves the VM's (or, with vmi, the VMI's) object graph.
func (s *Server) objectGraph(vmi bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		opts := kubevirtv1.ObjectGraphOptions{}
		if raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16)); len(raw) > 0 {
			if err := json.Unmarshal(raw, &opts); err != nil {
				writeError(w, badRequest("Can not unmarshal Request body to struct, error: %v", err))
				return
			}
		}
		root, err := s.graphRoot(r.Context(), r.PathValue("ns"), r.PathValue("name"), vmi)
		if err != nil {
			writeError(w, err)
			return
		}
		children, err := filterGraph(root.Children, &opts)
		if err != nil {
			writeError(w, badRequest("%v", err))
			return
		}
		root.Children = children
		writeJSON(w, root)
	}
}

func (s *Server) graphRoot(ctx context.Context, ns, name string, vmi bool) (kubevirtv1.ObjectGraphNode, error) {
	key := types.NamespacedName{Namespace: ns, Name: name}
	if vmi {
		v := &kubevirtv1.VirtualMachineInstance{}
		if err := s.Reader.Get(ctx, key, v); err != nil {
			return kubevirtv1.ObjectGraphNode{}, notFoundOr(err, "virtualmachineinstance", name)
		}
		children, err := s.instanceChildren(ctx, ns, name, &v.Spec)
		return graphNode(name, ns, "virtualmachineinstances", false, children...), err
	}
	vm := &kubevirtv1.VirtualMachine{}
	if err := s.Reader.Get(ctx, key, vm); err != nil {
		return kubevirtv1.ObjectGraphNode{}, notFoundOr(err, "virtualmachine", name)
	}
	var children []kubevirtv1.ObjectGraphNode
	if vm.Status.Created {
		pod, err := s.launcherPodNode(ctx, ns, name)
		if err != nil {
			return kubevirtv1.ObjectGraphNode{}, err
		}
		children = append(children, graphNode(name, ns, "virtualmachineinstances", false, pod...))
	}
	if m := vm.Spec.Instancetype; m != nil {
		children = append(children, matcherNodes(m.Kind, m.Name, m.RevisionName, vm.Status.InstancetypeRef, ns)...)
	}
	if m := vm.Spec.Preference; m != nil {
		children = append(children, matcherNodes(m.Kind, m.Name, m.RevisionName, vm.Status.PreferenceRef, ns)...)
	}
	var spec kubevirtv1.VirtualMachineInstanceSpec
	if vm.Spec.Template != nil {
		spec = vm.Spec.Template.Spec
	}
	children = append(children, credentialNodes(spec.AccessCredentials, ns)...)
	children = append(children, volumeNodes(spec.Volumes, ns)...)
	children = append(children, networkNodes(spec.Networks, ns)...)
	return graphNode(name, ns, "virtualmachines", false, children...), nil
}

func (s *Server) instanceChildren(ctx context.Context, ns, name string, spec *kubevirtv1.VirtualMachineInstanceSpec) ([]kubevirtv1.ObjectGraphNode, error) {
	children, err := s.launcherPodNode(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	children = append(children, credentialNodes(spec.AccessCredentials, ns)...)
	children = append(children, volumeNodes(spec.Volumes, ns)...)
	return append(children, networkNodes(spec.Networks, ns)...), nil
}

func notFoundOr(err error, resource, name string) error {
	if apierrors.IsNotFound(err) {
		return &ActionError{Code: http.StatusNotFound, Message: resource + ".kubevirt.io \"" + name + "\" not found"}
	}
	return internal("%v", err)
}

// launcherPodNode finds the VMI's launcher pod by owner, else by the
// domain annotation, as upstream.
func (s *Server) launcherPodNode(ctx context.Context, ns, vmi string) ([]kubevirtv1.ObjectGraphNode, error) {
	pods := &corev1.PodList{}
	if err := s.Reader.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{kubevirtv1.AppLabel: "virt-launcher"}); err != nil {
		return nil, internal("%v", err)
	}
	for _, p := range pods.Items {
		owned := p.Annotations[kubevirtv1.DomainAnnotation] == vmi
		for _, o := range p.OwnerReferences {
			owned = owned || (o.Kind == "VirtualMachineInstance" && o.Name == vmi)
		}
		if owned {
			return []kubevirtv1.ObjectGraphNode{graphNode(p.Name, ns, "pods", false)}, nil
		}
	}
	return nil, nil
}

// matcherNodes is the instancetype or preference a VM names (optional:
// the VM may outlive it) and its revision. As upstream, a matcher whose
// kind is left empty names no node.
func matcherNodes(kind, name, revision string, ref *kubevirtv1.InstancetypeStatusRef, ns string) []kubevirtv1.ObjectGraphNode {
	var out []kubevirtv1.ObjectGraphNode
	switch resource := strings.ToLower(kind) + "s"; resource {
	case "virtualmachineclusterinstancetypes", "virtualmachineclusterpreferences":
		out = append(out, graphNode(name, "", resource, true))
	case "virtualmachineinstancetypes", "virtualmachinepreferences":
		out = append(out, graphNode(name, ns, resource, true))
	}
	if ref != nil && ref.ControllerRevisionRef != nil {
		out = append(out, graphNode(ref.ControllerRevisionRef.Name, ns, "controllerrevisions", false))
	} else if ref == nil && revision != "" {
		out = append(out, graphNode(revision, ns, "controllerrevisions", false))
	}
	return out
}

func credentialNodes(acs []kubevirtv1.AccessCredential, ns string) []kubevirtv1.ObjectGraphNode {
	var out []kubevirtv1.ObjectGraphNode
	for _, ac := range acs {
		if k := ac.SSHPublicKey; k != nil && k.Source.Secret != nil {
			out = append(out, graphNode(k.Source.Secret.SecretName, ns, "secrets", false))
		} else if p := ac.UserPassword; p != nil && p.Source.Secret != nil {
			out = append(out, graphNode(p.Source.Secret.SecretName, ns, "secrets", false))
		}
	}
	return out
}

func volumeNodes(vols []kubevirtv1.Volume, ns string) []kubevirtv1.ObjectGraphNode {
	var out []kubevirtv1.ObjectGraphNode
	secret := func(ref *corev1.LocalObjectReference) {
		if ref != nil {
			out = append(out, graphNode(ref.Name, ns, "secrets", false))
		}
	}
	for _, v := range vols {
		switch {
		case v.DataVolume != nil:
			out = append(out, graphNode(v.DataVolume.Name, ns, "datavolumes", false, graphNode(v.DataVolume.Name, ns, "persistentvolumeclaims", false)))
		case v.PersistentVolumeClaim != nil:
			out = append(out, graphNode(v.PersistentVolumeClaim.ClaimName, ns, "persistentvolumeclaims", false))
		case v.ConfigMap != nil:
			out = append(out, graphNode(v.ConfigMap.Name, ns, "configmaps", false))
		case v.Secret != nil:
			out = append(out, graphNode(v.Secret.SecretName, ns, "secrets", false))
		case v.ServiceAccount != nil:
			out = append(out, graphNode(v.ServiceAccount.ServiceAccountName, ns, "serviceaccounts", false))
		case v.CloudInitNoCloud != nil:
			secret(v.CloudInitNoCloud.UserDataSecretRef)
			secret(v.CloudInitNoCloud.NetworkDataSecretRef)
		case v.CloudInitConfigDrive != nil:
			secret(v.CloudInitConfigDrive.UserDataSecretRef)
			secret(v.CloudInitConfigDrive.NetworkDataSecretRef)
		}
	}
	return out
}

func networkNodes(nets []kubevirtv1.Network, ns string) []kubevirtv1.ObjectGraphNode {
	var out []kubevirtv1.ObjectGraphNode
	for _, n := range nets {
		if n.Multus == nil || n.Multus.NetworkName == "" {
			continue
		}
		nadNS, name := ns, n.Multus.NetworkName
		if parts := strings.Split(name, "/"); len(parts) == 2 {
			nadNS, name = parts[0], parts[1]
		}
		out = append(out, graphNode(name, nadNS, "networkattachmentdefinitions", true))
	}
	return out
}

// filterGraph drops optional nodes when asked to and nodes the selector
// does not match, below the root, as upstream.
func filterGraph(nodes []kubevirtv1.ObjectGraphNode, opts *kubevirtv1.ObjectGraphOptions) ([]kubevirtv1.ObjectGraphNode, error) {
	sel := labels.Everything()
	if opts.LabelSelector != nil {
		var err error
		if sel, err = metav1.LabelSelectorAsSelector(opts.LabelSelector); err != nil {
			return nil, err
		}
	}
	var out []kubevirtv1.ObjectGraphNode
	for _, n := range nodes {
		if n.Optional != nil && *n.Optional && opts.IncludeOptionalNodes != nil && !*opts.IncludeOptionalNodes {
			continue
		}
		if !sel.Matches(labels.Set(n.Labels)) {
			continue
		}
		children, err := filterGraph(n.Children, opts)
		if err != nil {
			return nil, err
		}
		n.Children = children
		out = append(out, n)
	}
	return out, nil
}
