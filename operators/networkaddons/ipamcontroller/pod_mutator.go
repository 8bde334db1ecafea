package ipamcontroller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Webhook names, upstream's.
const (
	// WebhookName is the pod webhook's name in its configuration.
	WebhookName = "ipam-claims.k8s.cni.cncf.io"
	// MutatePath is where the pod webhook is served.
	MutatePath = "/mutate-v1-pod"
	// DefaultNetworkNADNamespace is where the cluster default network's
	// definition is when the NetworkAddonsConfig names none.
	DefaultNetworkNADNamespace = "ovn-kubernetes"
)

// PodMutator is the launcher pods' webhook: their Multus networks that
// keep their IPs name the VM's claim, and so does the default network
// element when the pod network is a primary user-defined network that
// keeps them.
type PodMutator struct {
	// Client reads NetworkAttachmentDefinitions and, from the cache, VMIs.
	Client client.Reader
	// APIReader reads a VMI the cache has not seen yet.
	APIReader client.Reader
	// DefaultNetNADNamespace is the namespace of the default network's
	// definition, which the default network element names.
	DefaultNetNADNamespace string
}

// denial is a request refused as such, not a failure to answer.
type denial string

func (d denial) Error() string { return string(d) }

// Handle answers one pod admission with upstream's messages.
func (m *PodMutator) Handle(ctx context.Context, req admission.Request) admission.Response {
	pod := &corev1.Pod{}
	if err := json.Unmarshal(req.Object.Raw, pod); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the pod: %w", err))
	}
	vmName, ok := pod.Annotations[kubevirtv1.DomainAnnotation]
	if !ok {
		return admission.Allowed("not a VM")
	}
	elems, err := parseNetworks(pod.Annotations[NetworksAnnotation], pod.Namespace)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, errors.New("failed to parse pod network selection elements"))
	}
	primary, err := primaryNetwork(ctx, m.Client, pod.Namespace)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if len(elems) == 0 && primary == nil {
		return admission.Allowed("no mutation required")
	}
	vmi, err := m.vmi(ctx, types.NamespacedName{Namespace: pod.Namespace, Name: vmName})
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("failed to access the VMI running in pod %q: %w",
			types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}.String(), err))
	}
	annotations, err := m.annotations(ctx, req.Operation, pod, vmi, elems, primary)
	var refused denial
	if errors.As(err, &refused) {
		return admission.Denied(refused.Error())
	} else if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if annotations == nil {
		return admission.Allowed("carry on")
	}
	patch := annotationPatch(pod.Annotations, annotations)
	if len(patch) == 0 {
		return admission.Allowed("mutation not needed")
	}
	pt := admissionv1.PatchTypeJSONPatch
	return admission.Response{Patches: patch, AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true, PatchType: &pt}}
}

// vmi reads the pod's VMI from the cache, else from the API server: the
// launcher pod is created right after its VMI.
func (m *PodMutator) vmi(ctx context.Context, key types.NamespacedName) (*kubevirtv1.VirtualMachineInstance, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	err := m.Client.Get(ctx, key, vmi)
	if apierrors.IsNotFound(err) && m.APIReader != nil {
		err = m.APIReader.Get(ctx, key, vmi)
	}
	return vmi, err
}

// annotations are the pod's annotations as they should be, nil when
// nothing is to change.
func (m *PodMutator) annotations(ctx context.Context, op admissionv1.Operation, pod *corev1.Pod, vmi *kubevirtv1.VirtualMachineInstance,
	elems []*selectionElement, primary *netConf) (map[string]string, error) {
	var out map[string]string
	changed, err := m.claimSecondaryNetworks(ctx, vmi, elems)
	if err != nil {
		return nil, err
	}
	if changed {
		if out, err = withNetworks(pod.Annotations, elems); err != nil {
			return nil, err
		}
	}
	iface := primaryUDNInterface(vmi, primary)
	if iface == nil {
		return out, nil
	}
	if _, set := pod.Annotations[DefaultNetworkAnnotation]; set && op == admissionv1.Create {
		return nil, denial(fmt.Sprintf("multus default network annotation %q is not allowed on pod creation", DefaultNetworkAnnotation))
	}
	if out == nil {
		out = clone(pod.Annotations)
	}
	return out, m.claimPrimaryNetwork(out, vmi, iface, primary)
}

// claimSecondaryNetworks names the claim in each element whose network
// keeps its IPs and is one of the VMI's networks. A definition not there
// yet changes nothing: the pod waits for it anyway.
func (m *PodMutator) claimSecondaryNetworks(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, elems []*selectionElement) (bool, error) {
	byNAD := secondaryNetworks(vmi)
	changed := false
	for _, e := range elems {
		key := types.NamespacedName{Namespace: e.Namespace, Name: e.Name}
		nad, err := getNAD(ctx, m.Client, key)
		if apierrors.IsNotFound(err) {
			return false, nil
		} else if err != nil {
			return false, err
		}
		conf, err := parseNetConf(nad)
		if err != nil {
			return false, err
		}
		logical, ok := byNAD[key]
		if !conf.AllowPersistentIPs || !ok {
			continue
		}
		e.IPAMClaimReference = ClaimName(vmi.Name, logical)
		changed = true
	}
	return changed, nil
}

// claimPrimaryNetwork names the pod network's claim: in the default
// network element when the VMI asks for a MAC or addresses on it, and in
// OVN-Kubernetes' own annotation always.
func (m *PodMutator) claimPrimaryNetwork(annotations map[string]string, vmi *kubevirtv1.VirtualMachineInstance, iface *kubevirtv1.Interface, primary *netConf) error {
	ips, err := interfaceIPRequests(vmi, iface.Name, primary)
	if err != nil {
		return err
	}
	claim := ClaimName(vmi.Name, iface.Name)
	if len(ips) > 0 || iface.MacAddress != "" {
		def := &selectionElement{Name: "default", Namespace: m.DefaultNetNADNamespace, IPRequest: ips, MacRequest: iface.MacAddress, IPAMClaimReference: claim}
		value, err := formatNetworks([]*selectionElement{def})
		if err != nil {
			return err
		}
		annotations[DefaultNetworkAnnotation] = value
	}
	annotations[PrimaryUDNClaimAnnotation] = claim
	return nil
}

func withNetworks(annotations map[string]string, elems []*selectionElement) (map[string]string, error) {
	value, err := formatNetworks(elems)
	if err != nil {
		return nil, err
	}
	out := clone(annotations)
	out[NetworksAnnotation] = value
	return out, nil
}

// secondaryNetworks maps the VMI's Multus definitions to the logical
// networks naming them.
func secondaryNetworks(vmi *kubevirtv1.VirtualMachineInstance) map[types.NamespacedName]string {
	out := map[types.NamespacedName]string{}
	for _, n := range vmi.Spec.Networks {
		if n.Multus != nil && !n.Multus.Default {
			out[nadKey(vmi.Namespace, n.Multus.NetworkName)] = n.Name
		}
	}
	return out
}

// primaryUDNInterface is the VMI's pod network interface when the primary
// network keeps its IPs.
func primaryUDNInterface(vmi *kubevirtv1.VirtualMachineInstance, primary *netConf) *kubevirtv1.Interface {
	if primary == nil || !primary.AllowPersistentIPs {
		return nil
	}
	for _, n := range vmi.Spec.Networks {
		if n.Pod == nil {
			continue
		}
		for i := range vmi.Spec.Domain.Devices.Interfaces {
			if vmi.Spec.Domain.Devices.Interfaces[i].Name == n.Name {
				return &vmi.Spec.Domain.Devices.Interfaces[i]
			}
		}
		return nil
	}
	return nil
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	maps.Copy(out, m)
	return out
}

// pointerEscaper escapes a key as a JSON pointer's reference token.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// annotationPatch turns before into after, key by key in a stable order.
func annotationPatch(before, after map[string]string) []jsonpatch.JsonPatchOperation {
	var ops []jsonpatch.JsonPatchOperation
	for _, k := range slices.Sorted(maps.Keys(after)) {
		old, had := before[k]
		switch {
		case !had:
			ops = append(ops, jsonpatch.NewOperation("add", "/metadata/annotations/"+pointerEscaper.Replace(k), after[k]))
		case old != after[k]:
			ops = append(ops, jsonpatch.NewOperation("replace", "/metadata/annotations/"+pointerEscaper.Replace(k), after[k]))
		}
	}
	return ops
}
