// Package crdgen generates the CustomResourceDefinitions virtflow serves from
// Go types: our own (api/...) and the upstream API modules. Upstream KubeVirt
// types carry no kubebuilder resource markers, so their scope, names and
// printer columns are supplied here from upstream's published CRDs.
package crdgen

import (
	"fmt"
	"sort"

	"golang.org/x/tools/go/packages"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"
	"sigs.k8s.io/yaml"
)

// Packages are the Go packages whose kinds become CRDs.
var Packages = []string{
	"github.com/virtflow/virtflow/api/hco/v1beta1",
	"github.com/virtflow/virtflow/api/networkaddonsoperator/v1",
	"github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1",
	"kubevirt.io/api/core/v1",
	"kubevirt.io/api/instancetype/v1beta1",
	"kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1",
	"kubevirt.io/ssp-operator/api/v1beta3",
}

// Generate returns file name → YAML for every served kind, in a stable order.
func Generate() (map[string][]byte, error) {
	roots, err := loader.LoadRoots(Packages...)
	if err != nil {
		return nil, fmt.Errorf("loading API packages: %w", err)
	}
	reg := &markers.Registry{}
	if err := (crd.Generator{}).RegisterMarkers(reg); err != nil {
		return nil, fmt.Errorf("registering markers: %w", err)
	}
	parser := &crd.Parser{
		Collector: &markers.Collector{Registry: reg},
		Checker:   &loader.TypeChecker{},
		// Upstream KubeVirt uses float64 in a few places (e.g. ratios).
		AllowDangerousTypes: true,
	}
	crd.AddKnownTypes(parser)
	for _, r := range roots {
		parser.NeedPackage(r)
	}
	if err := loadErrors(roots); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, gk := range servedKinds() {
		parser.NeedCRDFor(gk, nil)
		c, ok := parser.CustomResourceDefinitions[gk]
		if !ok {
			return nil, fmt.Errorf("no CRD produced for %s", gk)
		}
		if err := finish(&c, gk); err != nil {
			return nil, err
		}
		data, err := yaml.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("encoding CRD %s: %w", gk, err)
		}
		out[fmt.Sprintf("%s_%s.yaml", c.Spec.Group, c.Spec.Names.Plural)] = data
	}
	return out, nil
}

func loadErrors(roots []*loader.Package) error {
	var msgs []string
	for _, r := range roots {
		for _, e := range r.Errors {
			// Dependencies are loaded lazily, so type errors about
			// unresolved imports are expected, as in controller-gen.
			if e.Kind != packages.TypeError {
				msgs = append(msgs, e.Error())
			}
		}
	}
	if len(msgs) > 0 {
		return fmt.Errorf("API packages have errors: %v", msgs)
	}
	return nil
}

// servedKinds lists the kinds in a deterministic order.
func servedKinds() []schema.GroupKind {
	var kinds []schema.GroupKind
	for gk := range overrides {
		kinds = append(kinds, gk)
	}
	for _, gk := range ownMarkerKinds {
		kinds = append(kinds, gk)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	return kinds
}

// finish applies the resource metadata upstream declares outside the Go
// types and strips what must not be committed.
func finish(c *apiextensionsv1.CustomResourceDefinition, gk schema.GroupKind) error {
	c.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	c.Annotations = nil
	crd.FixTopLevelMetadata(*c)
	if o, ok := overrides[gk]; ok {
		o.apply(c)
	}
	if len(c.Spec.Versions) == 0 {
		return fmt.Errorf("CRD %s has no versions", gk)
	}
	storage := 0
	for _, v := range c.Spec.Versions {
		if v.Storage {
			storage++
		}
	}
	if storage != 1 {
		c.Spec.Versions[len(c.Spec.Versions)-1].Storage = true
	}
	return nil
}
