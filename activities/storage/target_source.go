package storage

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/registries"
)

// specSource is what a DataVolume's or VolumeImportSource's spec says an
// import reads: an http or registry source, or a blank disk.
type specSource struct {
	http     *cdiv1.DataVolumeSourceHTTP
	registry *cdiv1.DataVolumeSourceRegistry
	blank    bool
}

// checkImportSource returns the source the import may read: the one its
// DataVolume or VolumeImportSource names, which the request must name
// too. The node reads the source's secret and config map in the claim's
// namespace, so a request naming another source (another URL to send them
// to) is refused. Whether a registry may be reached insecurely is CDIConfig's
// word now, not the request's.
func (a *Activities) checkImportSource(ctx context.Context, t target, req cdi.ImportRequest) (cdi.SourceRef, error) {
	spec, err := a.specSourceOf(ctx, t)
	if err != nil {
		return cdi.SourceRef{}, err
	}
	want, ok := spec.ref()
	switch {
	case !ok && !spec.blank:
		return cdi.SourceRef{}, mismatch("%s has no source virtflow can import", t.owner())
	case req.Blank != spec.blank:
		return cdi.SourceRef{}, mismatch("the request's blank disk (%t) is not what %s asks for", req.Blank, t.owner())
	case spec.blank:
		return cdi.SourceRef{}, nil
	}
	got := req.Source
	got.Insecure = false
	if got != want {
		return cdi.SourceRef{}, mismatch("the request's source %q is not the one %s names, %q", req.Source.URL, t.owner(), want.URL)
	}
	if want.Registry {
		want.Insecure = registries.Insecure(ctx, a.Client, want.URL)
	}
	return want, nil
}

// specSourceOf reads the target's owner's source: its DataVolume's, or the
// VolumeImportSource its populated claim refers to.
func (a *Activities) specSourceOf(ctx context.Context, t target) (specSource, error) {
	if t.dv != nil {
		s := t.dv.Spec.Source
		if s == nil {
			return specSource{}, nil
		}
		return specSource{http: s.HTTP, registry: s.Registry, blank: s.Blank != nil}, nil
	}
	vis := &cdiv1.VolumeImportSource{}
	key := types.NamespacedName{Namespace: t.populated.Namespace, Name: t.populated.Spec.DataSourceRef.Name}
	if err := a.get(ctx, key, vis, "VolumeImportSource"); err != nil {
		return specSource{}, err
	}
	s := vis.Spec.Source
	if s == nil {
		return specSource{}, nil
	}
	return specSource{http: s.HTTP, registry: s.Registry, blank: s.Blank != nil}, nil
}

// ref is the source as the controllers put it in a request, without
// Insecure; false when it names nothing virtflow can read.
func (s specSource) ref() (cdi.SourceRef, bool) {
	switch {
	case s.http != nil:
		return cdi.SourceRef{URL: s.http.URL, SecretRef: s.http.SecretRef, CertConfigMap: s.http.CertConfigMap}, true
	case s.registry != nil && s.registry.URL != nil:
		return cdi.SourceRef{URL: *s.registry.URL, Registry: true,
			SecretRef: ptr.Deref(s.registry.SecretRef, ""), CertConfigMap: ptr.Deref(s.registry.CertConfigMap, "")}, true
	}
	return cdi.SourceRef{}, false
}
