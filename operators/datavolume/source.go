package datavolume

import (
	"context"
	"fmt"

	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/registries"
)

// sourceRef names what the import reads: credentials stay in their
// secret and config map, which the node reads itself.
func (r *Reconciler) sourceRef(ctx context.Context, dv *cdiv1.DataVolume) (cdi.SourceRef, error) {
	s := dv.Spec.Source
	switch {
	case s != nil && s.HTTP != nil:
		return cdi.SourceRef{URL: s.HTTP.URL, SecretRef: s.HTTP.SecretRef, CertConfigMap: s.HTTP.CertConfigMap}, nil
	case s != nil && s.Registry != nil && s.Registry.URL != nil:
		return cdi.SourceRef{
			URL: *s.Registry.URL, Registry: true, Insecure: registries.Insecure(ctx, r.Client, *s.Registry.URL),
			SecretRef: ptr.Deref(s.Registry.SecretRef, ""), CertConfigMap: ptr.Deref(s.Registry.CertConfigMap, ""),
		}, nil
	case s != nil && (s.Blank != nil || s.Upload != nil):
		return cdi.SourceRef{}, nil
	}
	return cdi.SourceRef{}, fmt.Errorf("DataVolume %s/%s has no source virtflow can import", dv.Namespace, dv.Name)
}
