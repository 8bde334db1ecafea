package vmi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/virtflow/virtflow/wire/launcherpod"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Multus annotations, upstream's.
const (
	// NetworksAnnotation asks Multus for the pod's secondary networks.
	NetworksAnnotation = "k8s.v1.cni.cncf.io/networks"
	// NetworkStatusAnnotation is where Multus reports what it attached.
	NetworkStatusAnnotation = "k8s.v1.cni.cncf.io/network-status"
	// ResourceNameAnnotation on a NetworkAttachmentDefinition names the
	// device plugin resource a pod on that network needs.
	ResourceNameAnnotation = "k8s.v1.cni.cncf.io/resourceName"
)

// NADKind is the NetworkAttachmentDefinition's group, version and kind.
var NADKind = schema.GroupVersionKind{Group: "k8s.cni.cncf.io", Version: "v1", Kind: "NetworkAttachmentDefinition"}

// errNetworkMissing says a network the VMI names has no definition yet.
var errNetworkMissing = errors.New("network attachment definition missing")

// attachment is one secondary Multus network of the launcher pod.
type attachment struct {
	nad          types.NamespacedName
	podInterface string
	mac          string
	// resource is the NetworkAttachmentDefinition's resourceName, if any.
	resource string
}

// selectionElement is Multus's network selection element.
type selectionElement struct {
	Name             string `json:"name"`
	Namespace        string `json:"namespace"`
	InterfaceRequest string `json:"interface,omitempty"`
	MacRequest       string `json:"mac,omitempty"`
}

// nadName resolves "name" or "namespace/name" against the VMI's namespace.
func nadName(namespace, network string) types.NamespacedName {
	if ns, name, ok := strings.Cut(network, "/"); ok {
		return types.NamespacedName{Namespace: ns, Name: name}
	}
	return types.NamespacedName{Namespace: namespace, Name: network}
}

// attachments reads the definitions of the VMI's secondary networks;
// one that does not exist fails with upstream's words.
func (r *Reconciler) attachments(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) ([]attachment, error) {
	macs := map[string]string{}
	for _, iface := range vmi.Spec.Domain.Devices.Interfaces {
		macs[iface.Name] = iface.MacAddress
	}
	var out []attachment
	for _, n := range vmi.Spec.Networks {
		if n.Multus == nil || n.Multus.Default {
			continue
		}
		name := nadName(vmi.Namespace, n.Multus.NetworkName)
		nad := &unstructured.Unstructured{}
		nad.SetGroupVersionKind(NADKind)
		if err := r.Client.Get(ctx, name, nad); apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("%w: failed to locate network attachment definition %s", errNetworkMissing, name)
		} else if err != nil {
			return nil, fmt.Errorf("reading network attachment definition %s: %w", name, err)
		}
		out = append(out, attachment{nad: name, podInterface: launcherpod.SecondaryInterface(n.Name), mac: macs[n.Name],
			resource: nad.GetAnnotations()[ResourceNameAnnotation]})
	}
	return out, nil
}

// withAttachments asks Multus for the networks and the scheduler for
// their devices.
func withAttachments(pod *corev1.Pod, atts []attachment) error {
	if len(atts) == 0 {
		return nil
	}
	elems := make([]selectionElement, 0, len(atts))
	c := &pod.Spec.Containers[0]
	for _, a := range atts {
		elems = append(elems, selectionElement{Name: a.nad.Name, Namespace: a.nad.Namespace, InterfaceRequest: a.podInterface, MacRequest: a.mac})
		if a.resource == "" {
			continue
		}
		res := corev1.ResourceName(a.resource)
		q := c.Resources.Requests[res]
		q.Add(resource.MustParse("1"))
		c.Resources.Requests[res] = q
		if c.Resources.Limits == nil {
			c.Resources.Limits = corev1.ResourceList{}
		}
		c.Resources.Limits[res] = q
	}
	data, err := json.Marshal(elems)
	if err != nil {
		return fmt.Errorf("rendering the Multus networks annotation: %w", err)
	}
	pod.Annotations[NetworksAnnotation] = string(data)
	return nil
}
