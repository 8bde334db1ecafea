package datavolume

import (
	"context"
	"fmt"

	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/registries"
)

// sourceRef names what the import reads: credentials stay in their
// secret and config map, which the node reads itself.
func (r *Reconciler) sourceRef(ctx context.Context, dv *cdiv1.DataVolume) (cdi.SourceRef, error) {
	s := dv.Spec.Source
	switch {
	case s != nil && (s.HTTP != nil || s.Registry != nil):
		if ref, ok := SourceRef(ctx, r.Client, s.HTTP, s.Registry); ok {
			return ref, nil
		}
	case s != nil && (s.Blank != nil || s.Upload != nil):
		return cdi.SourceRef{}, nil
	}
	return cdi.SourceRef{}, fmt.Errorf("DataVolume %s/%s has no source virtflow can import", dv.Namespace, dv.Name)
}

// SourceRef is the import's reference to an http or registry source
// (DataVolumes and VolumeImportSources share their types); false when
// neither is set to something virtflow can read.
func SourceRef(ctx context.Context, c client.Reader, http *cdiv1.DataVolumeSourceHTTP, reg *cdiv1.DataVolumeSourceRegistry) (cdi.SourceRef, bool) {
	switch {
	case http != nil:
		return cdi.SourceRef{URL: http.URL, SecretRef: http.SecretRef, CertConfigMap: http.CertConfigMap}, true
	case reg != nil && reg.URL != nil:
		return cdi.SourceRef{
			URL: *reg.URL, Registry: true, Insecure: registries.Insecure(ctx, c, *reg.URL),
			SecretRef: ptr.Deref(reg.SecretRef, ""), CertConfigMap: ptr.Deref(reg.CertConfigMap, ""),
		}, true
	}
	return cdi.SourceRef{}, false
}
