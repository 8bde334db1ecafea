package ipamcontroller

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NADKind is the NetworkAttachmentDefinition's group, version and kind.
var NADKind = schema.GroupVersionKind{Group: "k8s.cni.cncf.io", Version: "v1", Kind: "NetworkAttachmentDefinition"}

// primaryRole marks a NetworkAttachmentDefinition as its namespace's
// primary (pod) network, as OVN-Kubernetes' user-defined networks do.
const primaryRole = "primary"

// netConf is what the controller reads of a NetworkAttachmentDefinition's
// CNI configuration, upstream's fields.
type netConf struct {
	Name               string `json:"name"`
	AllowPersistentIPs bool   `json:"allowPersistentIPs,omitempty"`
	Role               string `json:"role,omitempty"`
	Subnets            string `json:"subnets,omitempty"`
}

// parseNetConf reads a definition's spec.config; an empty one asks for
// nothing.
func parseNetConf(nad *unstructured.Unstructured) (*netConf, error) {
	conf := &netConf{}
	raw, _, _ := unstructured.NestedString(nad.Object, "spec", "config")
	if raw == "" {
		return conf, nil
	}
	if err := json.Unmarshal([]byte(raw), conf); err != nil {
		return nil, fmt.Errorf("failed to extract CNI configuration from NAD: %w", err)
	}
	return conf, nil
}

// nadKey resolves a Multus network name, "name" or "namespace/name",
// against the VMI's namespace.
func nadKey(namespace, network string) types.NamespacedName {
	if ns, name, ok := strings.Cut(network, "/"); ok {
		return types.NamespacedName{Namespace: ns, Name: name}
	}
	return types.NamespacedName{Namespace: namespace, Name: network}
}

// getNAD reads a NetworkAttachmentDefinition (from the API server: the
// client keeps no cache of unstructured objects).
func getNAD(ctx context.Context, c client.Reader, key types.NamespacedName) (*unstructured.Unstructured, error) {
	nad := &unstructured.Unstructured{}
	nad.SetGroupVersionKind(NADKind)
	if err := c.Get(ctx, key, nad); err != nil {
		return nil, fmt.Errorf("reading network attachment definition %s: %w", key, err)
	}
	return nad, nil
}

// primaryNetwork is the configuration of the namespace's primary network,
// nil when it has none (or the cluster has no NetworkAttachmentDefinitions
// at all).
func primaryNetwork(ctx context.Context, c client.Reader, namespace string) (*netConf, error) {
	nads := &unstructured.UnstructuredList{}
	nads.SetGroupVersionKind(NADKind.GroupVersion().WithKind(NADKind.Kind + "List"))
	if err := c.List(ctx, nads, client.InNamespace(namespace)); meta.IsNoMatchError(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("failed listing nads for pod namespace %q: %w", namespace, err)
	}
	for i := range nads.Items {
		conf, err := parseNetConf(&nads.Items[i])
		if err != nil {
			return nil, fmt.Errorf("failed to extract the relevant NAD information: %w", err)
		}
		if conf.Role == primaryRole {
			return conf, nil
		}
	}
	return nil, nil
}
