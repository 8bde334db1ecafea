package datavolume

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
)

// Messages for DataVolumes CDI accepts but this release cannot fill.
const (
	unsupportedSource      = "only http, registry, upload, pvc and blank sources are supported by this virtflow release"
	unsupportedImageStream = "registry imageStream sources are not supported by this virtflow release; use a registry url"
	unsupportedPopulation  = "externally populated DataVolumes (dataSource or dataSourceRef) are not supported by this virtflow release"
	unsupportedHTTPField   = "%s is not supported yet by this virtflow release"
)

// Unsupported is unsupported for a source alone, as a VolumeImportSource
// has it: what CDI accepts but this release cannot fill.
func Unsupported(f *field.Path, s *cdiv1.DataVolumeSource) []metav1.StatusCause {
	return unsupported(f, &cdiv1.DataVolumeSpec{Source: s})
}

// unsupported refuses a valid spec this release cannot fill: a source with
// no importer here (s3, gcs, imageio, vddk, snapshot), an image stream, or
// external population. A sourceRef passes: its DataSource may point at a
// claim later, and the DataVolume waits for it.
func unsupported(f *field.Path, spec *cdiv1.DataVolumeSpec) []metav1.StatusCause {
	if ds, ref := populationRefs(spec); ds != nil || ref != nil {
		return cdiadmission.Invalid(f.Child("source"), unsupportedPopulation)
	}
	s := spec.Source
	switch {
	case s == nil:
		return nil
	case s.Registry != nil && s.Registry.ImageStream != nil:
		return cdiadmission.Invalid(f.Child("source", "Registry"), unsupportedImageStream)
	case s.HTTP != nil:
		return unsupportedHTTP(f.Child("source", "http"), s.HTTP)
	case s.HTTP != nil, s.Registry != nil, s.Upload != nil, s.PVC != nil, s.Blank != nil:
		return nil
	}
	return cdiadmission.Invalid(f.Child("source"), unsupportedSource)
}

// unsupportedHTTP refuses what an http source may ask that the importer
// does not do yet, rather than import without it: a checksum it would not
// verify, headers it would not send.
func unsupportedHTTP(f *field.Path, h *cdiv1.DataVolumeSourceHTTP) []metav1.StatusCause {
	for _, c := range []struct {
		set  bool
		path *field.Path
	}{
		{h.Checksum != "", f.Child("checksum")},
		{len(h.ExtraHeaders) > 0, f.Child("extraHeaders")},
		{len(h.SecretExtraHeaders) > 0, f.Child("secretExtraHeaders")},
	} {
		if c.set {
			return cdiadmission.Invalid(c.path, fmt.Sprintf(unsupportedHTTPField, c.path))
		}
	}
	return nil
}
