package ipamcontroller

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Pod annotations the webhook reads and writes, upstream's.
const (
	// NetworksAnnotation asks Multus for the pod's secondary networks.
	NetworksAnnotation = "k8s.v1.cni.cncf.io/networks"
	// DefaultNetworkAnnotation overrides the pod's cluster network.
	DefaultNetworkAnnotation = "v1.multus-cni.io/default-network"
	// PrimaryUDNClaimAnnotation names the primary network's claim for
	// OVN-Kubernetes releases that read it instead of the element.
	PrimaryUDNClaimAnnotation = "k8s.ovn.org/primary-udn-ipamclaim"
	// IPRequestsAnnotation on a VMI asks for addresses per interface.
	IPRequestsAnnotation = "network.kubevirt.io/addresses"
)

// selectionElement is Multus's network selection element with upstream's
// fields in upstream's order; those the controller only carries stay raw.
type selectionElement struct {
	Name                  string          `json:"name"`
	Namespace             string          `json:"namespace,omitempty"`
	IPRequest             []string        `json:"ips,omitempty"`
	MacRequest            string          `json:"mac,omitempty"`
	InfinibandGUIDRequest string          `json:"infiniband-guid,omitempty"`
	InterfaceRequest      string          `json:"interface,omitempty"`
	PortMappingsRequest   json.RawMessage `json:"portMappings,omitempty"`
	BandwidthRequest      json.RawMessage `json:"bandwidth,omitempty"`
	CNIArgs               json.RawMessage `json:"cni-args,omitempty"`
	GatewayRequest        json.RawMessage `json:"default-route,omitempty"`
	IPAMClaimReference    string          `json:"ipam-claim-reference,omitempty"`
}

// dnsLabel is what each part of the comma-separated form must be.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// parseNetworks reads a networks annotation as Multus does: a JSON list of
// elements, or "[namespace/]name[@interface]" items separated by commas;
// an element without a namespace is in defaultNamespace. An empty
// annotation asks for no network.
func parseNetworks(annotation, defaultNamespace string) ([]*selectionElement, error) {
	if annotation == "" {
		return nil, nil
	}
	var elems []*selectionElement
	if strings.ContainsAny(annotation, `[{"`) {
		if err := json.Unmarshal([]byte(annotation), &elems); err != nil {
			return nil, fmt.Errorf("parsing the network selection elements: %w", err)
		}
	} else {
		for _, item := range strings.Split(annotation, ",") {
			e, err := parseNetworkItem(strings.TrimSpace(item))
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
		}
	}
	for _, e := range elems {
		if e == nil {
			return nil, errors.New("a network selection element is null")
		}
		if e.Namespace == "" {
			e.Namespace = defaultNamespace
		}
	}
	return elems, nil
}

// parseNetworkItem reads "[namespace/]name[@interface]".
func parseNetworkItem(item string) (*selectionElement, error) {
	e := &selectionElement{}
	parts := strings.Split(item, "/")
	switch len(parts) {
	case 1:
		e.Name = parts[0]
	case 2:
		e.Namespace, e.Name = strings.TrimSpace(parts[0]), parts[1]
	default:
		return nil, fmt.Errorf("invalid network object %q (failed at '/')", item)
	}
	name, iface, hasIface := strings.Cut(e.Name, "@")
	if hasIface && strings.Contains(iface, "@") {
		return nil, fmt.Errorf("invalid network object %q (failed at '@')", item)
	}
	e.Name, e.InterfaceRequest = strings.TrimSpace(name), strings.TrimSpace(iface)
	for _, part := range []string{e.Namespace, e.Name, e.InterfaceRequest} {
		if part != "" && !dnsLabel.MatchString(part) {
			return nil, fmt.Errorf("invalid network object %q: %q is not a DNS-1123 label", item, part)
		}
	}
	return e, nil
}

// formatNetworks writes elements as the annotation's JSON list.
func formatNetworks(elems []*selectionElement) (string, error) {
	data, err := json.Marshal(elems)
	if err != nil {
		return "", fmt.Errorf("encoding the network selection elements: %w", err)
	}
	return string(data), nil
}
