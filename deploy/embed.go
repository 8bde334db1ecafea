// Package deploy holds the manifests virtflow installs: CRDs generated from
// the Go types (crds/, see cmd/crdgen), RBAC, and the embedded node's
// add-ons (embedded/). They are embedded so the
// all-in-one binary installs exactly what it was built with.
package deploy

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
)

//go:embed crds/*.yaml rbac/*.yaml embedded/*.yaml base/*.yaml cluster/*.yaml pipelines/*.yaml
var files embed.FS

// kustomizationFile is how kustomize names a directory's kustomization;
// it is not a manifest to apply.
const kustomizationFile = "kustomization.yaml"

// CRDs returns the CRD manifests, sorted by file name.
func CRDs() (map[string][]byte, error) { return read("crds") }

// RBAC returns the RBAC manifests, sorted by file name.
func RBAC() (map[string][]byte, error) { return read("rbac") }

// ClusterDNS is the embedded node's CoreDNS, with CLUSTER_DNS_IP standing
// for the DNS Service's ClusterIP.
func ClusterDNS() ([]byte, error) { return files.ReadFile("embedded/coredns.yaml") }

// InProcessIdentity binds the identity of the in-process benchmark, which
// runs every component in one process, to cluster-admin; only the test
// harness applies it.
func InProcessIdentity() ([]byte, error) { return files.ReadFile("embedded/inprocess-identity.yaml") }

// Registry is the embedded node's OCI registry, with REGISTRY_DIR standing
// for its storage directory on the node.
func Registry() ([]byte, error) { return files.ReadFile("embedded/registry.yaml") }

func read(dir string) (map[string][]byte, error) {
	entries, err := fs.ReadDir(files, dir)
	if err != nil {
		return nil, fmt.Errorf("listing embedded %s: %w", dir, err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.Name() == kustomizationFile {
			continue
		}
		data, err := files.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("reading embedded %s/%s: %w", dir, e.Name(), err)
		}
		out[e.Name()] = data
	}
	return out, nil
}

// SortedNames returns the keys of a manifest map in order.
func SortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
