package datavolume

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/activities/storage"
)

// sourceRef names what the import reads: credentials stay in their
// secret and config map, which the node reads itself.
func (r *Reconciler) sourceRef(ctx context.Context, dv *cdiv1.DataVolume) (storage.SourceRef, error) {
	s := dv.Spec.Source
	switch {
	case s != nil && s.HTTP != nil:
		return storage.SourceRef{URL: s.HTTP.URL, SecretRef: s.HTTP.SecretRef, CertConfigMap: s.HTTP.CertConfigMap}, nil
	case s != nil && s.Registry != nil && s.Registry.URL != nil:
		ref := storage.SourceRef{URL: *s.Registry.URL, Registry: true, SecretRef: deref(s.Registry.SecretRef), CertConfigMap: deref(s.Registry.CertConfigMap)}
		ref.Insecure = r.insecureRegistry(ctx, ref.URL)
		return ref, nil
	case s != nil && (s.Blank != nil || s.Upload != nil):
		return storage.SourceRef{}, nil
	}
	return storage.SourceRef{}, fmt.Errorf("DataVolume %s/%s has no source virtflow can import", dv.Namespace, dv.Name)
}

// insecureRegistry tells whether CDIConfig lists the URL's registry host
// among its insecureRegistries.
func (r *Reconciler) insecureRegistry(ctx context.Context, url string) bool {
	cfg := &cdiv1.CDIConfig{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: "config"}, cfg); err != nil {
		return false
	}
	host, _, _ := strings.Cut(strings.TrimPrefix(url, "docker://"), "/")
	return slices.Contains(cfg.Spec.InsecureRegistries, host)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
