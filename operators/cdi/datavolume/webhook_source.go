package datavolume

import (
	"fmt"
	"net/url"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
)

// validateSource checks spec.source: exactly one source, the content type,
// then that source's own fields.
func validateSource(f *field.Path, spec *cdiv1.DataVolumeSpec) []metav1.StatusCause {
	s := spec.Source
	switch n := SourceCount(s); {
	case n == 0:
		return cdiadmission.Invalid(f.Child("source"), "Missing Data volume source")
	case n > 1:
		return cdiadmission.Invalid(f.Child("source"), "Multiple Data volume sources")
	}
	if causes := ContentTypeProblem(f, spec.ContentType); causes != nil {
		return causes
	}
	return SourceFields(f, s, spec.ContentType)
}

// ContentTypeProblem is CDI's cause for a content type that is neither
// kubevirt nor archive; nil when it is one of them or empty.
func ContentTypeProblem(f *field.Path, ct cdiv1.DataVolumeContentType) []metav1.StatusCause {
	if ct != "" && ct != cdiv1.DataVolumeKubeVirt && ct != cdiv1.DataVolumeArchive {
		return cdiadmission.Invalid(f.Child("contentType"), fmt.Sprintf("ContentType not one of: %s, %s", cdiv1.DataVolumeKubeVirt, cdiv1.DataVolumeArchive))
	}
	return nil
}

// SourceFields checks the fields of the one source set in s, with content
// type ct, as CDI checks them for DataVolumes and VolumeImportSources.
func SourceFields(f *field.Path, s *cdiv1.DataVolumeSource, ct cdiv1.DataVolumeContentType) []metav1.StatusCause {
	switch {
	case s.HTTP != nil:
		return append(checkSourceURL(f, "HTTP", s.HTTP.URL), checkChecksum(f, "HTTP", s.HTTP.Checksum)...)
	case s.S3 != nil:
		return checkSourceURL(f, "S3", s.S3.URL)
	case s.GCS != nil:
		return checkSourceURL(f, "GCS", s.GCS.URL)
	case s.Blank != nil && ct == cdiv1.DataVolumeArchive:
		return cdiadmission.Invalid(f.Child("contentType"), "SourceType cannot be blank and the contentType be archive")
	case s.Registry != nil:
		return validateRegistry(f, s.Registry, ct)
	case s.Imageio != nil:
		return validateImageIO(f, s.Imageio)
	case s.VDDK != nil:
		return validateVDDK(f, s.VDDK)
	case s.PVC != nil && (s.PVC.Namespace == "" || s.PVC.Name == ""):
		at := f.Child("source", "PVC")
		return cdiadmission.Invalid(at, at.String()+" source PVC is not valid")
	case s.Snapshot != nil && (s.Snapshot.Namespace == "" || s.Snapshot.Name == ""):
		at := f.Child("source", "Snapshot")
		return cdiadmission.Invalid(at, at.String()+" source snapshot is not valid")
	}
	return nil
}

// SourceCount is how many of the source's kinds are set; none when s is
// nil.
func SourceCount(s *cdiv1.DataVolumeSource) int {
	n := 0
	if s == nil {
		return 0
	}
	for _, set := range []bool{s.HTTP != nil, s.S3 != nil, s.GCS != nil, s.Registry != nil, s.PVC != nil,
		s.Upload != nil, s.Blank != nil, s.Imageio != nil, s.VDDK != nil, s.Snapshot != nil} {
		if set {
			n++
		}
	}
	return n
}

// checkSourceURL wants an absolute http, https or gs URL. CDI puts the
// source path before the problem in the message, and the kind's url field
// in the cause; kind is spelled as CDI spells it there ("ImageIO").
func checkSourceURL(f *field.Path, kind, raw string) []metav1.StatusCause {
	problem := ""
	if raw == "" {
		problem = "source URL is empty"
	} else if u, err := url.ParseRequestURI(raw); err != nil {
		problem = "Invalid source URL: " + raw
	} else if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "gs" {
		problem = "Invalid source URL scheme: " + raw
	}
	if problem == "" {
		return nil
	}
	return cdiadmission.Invalid(f.Child("source", kind, "url"), f.Child("source").String()+" "+problem)
}

// checkChecksum wants an optional checksum to read "algorithm:hex".
func checkChecksum(f *field.Path, kind, sum string) []metav1.StatusCause {
	if sum == "" {
		return nil
	}
	if err := checksumProblem(sum); err != nil {
		return cdiadmission.Invalid(f.Child("source", kind, "checksum"), fmt.Sprintf("Invalid checksum format: %v", err))
	}
	return nil
}

// validateImageIO wants the disk, its credentials and a way to trust the
// engine, then its URL.
func validateImageIO(f *field.Path, s *cdiv1.DataVolumeSourceImageIO) []metav1.StatusCause {
	at := f.Child("source", "Imageio")
	if s.SecretRef == "" || s.DiskID == "" {
		return cdiadmission.Invalid(at, at.String()+" source Imageio is not valid")
	}
	if s.CertConfigMap == "" && (s.InsecureSkipVerify == nil || !*s.InsecureSkipVerify) {
		return cdiadmission.Invalid(at, at.String()+" source Imageio requires CertConfigMap or InsecureSkipVerify")
	}
	return checkSourceURL(f, "ImageIO", s.URL)
}

// validateVDDK wants the VM's disk, credentials and thumbprint, then its
// URL.
func validateVDDK(f *field.Path, s *cdiv1.DataVolumeSourceVDDK) []metav1.StatusCause {
	if s.SecretRef == "" || s.UUID == "" || s.BackingFile == "" || s.Thumbprint == "" {
		at := f.Child("source", "VDDK")
		return cdiadmission.Invalid(at, at.String()+" source VDDK is not valid")
	}
	return checkSourceURL(f, "VDDK", s.URL)
}
