package datavolume

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

func validSpec() cdiv1.DataVolumeSpec {
	return cdiv1.DataVolumeSpec{
		Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "https://images.example/disk.qcow2"}},
		Storage: &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
		}},
	}
}

func TestValidateSpecNamesTheProblemAsCDIDoes(t *testing.T) {
	cases := map[string]struct {
		edit func(*cdiv1.DataVolumeSpec)
		msg  string
	}{
		"no target":   {func(s *cdiv1.DataVolumeSpec) { s.Storage = nil }, "Missing Data volume PVC"},
		"two targets": {func(s *cdiv1.DataVolumeSpec) { s.PVC = &corev1.PersistentVolumeClaimSpec{} }, "Duplicate storage definition, both target storage and target pvc defined"},
		"no size":     {func(s *cdiv1.DataVolumeSpec) { s.Storage.Resources.Requests = nil }, "Storage size is missing"},
		"zero size": {func(s *cdiv1.DataVolumeSpec) {
			s.Storage.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("0")
		}, "Storage size can't be equal or less than zero"},
		"no source":   {func(s *cdiv1.DataVolumeSpec) { s.Source = nil }, "Data volume should have either Source or SourceRef, or be externally populated"},
		"two sources": {func(s *cdiv1.DataVolumeSpec) { s.Source.Blank = &cdiv1.DataVolumeBlankImage{} }, "Data volume must have exactly one source, found 2"},
		"bad url":     {func(s *cdiv1.DataVolumeSpec) { s.Source.HTTP.URL = "ftp://x/y" }, `source URL "ftp://x/y" is not a valid http or https URL`},
		"sourceRef kind": {func(s *cdiv1.DataVolumeSpec) {
			s.Source, s.SourceRef = nil, &cdiv1.DataVolumeSourceRef{Kind: "PersistentVolumeClaim", Name: "x"}
		}, "Unsupported sourceRef kind PersistentVolumeClaim, currently only DataSource is supported"},
		"pvc without access mode": {func(s *cdiv1.DataVolumeSpec) {
			s.PVC, s.Storage = &corev1.PersistentVolumeClaimSpec{Resources: s.Storage.Resources}, nil
		}, "Required value: at least 1 access mode is required"},
	}
	for name, c := range cases {
		spec := validSpec()
		c.edit(&spec)
		causes := ValidateSpec(field.NewPath("spec"), &spec)
		require.Len(t, causes, 1, name)
		require.Equal(t, c.msg, causes[0].Message, name)
	}
	spec := validSpec()
	require.Empty(t, ValidateSpec(field.NewPath("spec"), &spec))
}

func TestUsableSizeLeavesTheFilesystemOverhead(t *testing.T) {
	fs := corev1.PersistentVolumeFilesystem
	block := corev1.PersistentVolumeBlock
	require.Equal(t, int64(967)<<20, usableSize(1<<30, 0.055, &fs), "1Gi less 5.5%, aligned down to MiB")
	require.Equal(t, int64(1)<<30, usableSize(1<<30, 0.055, &block), "block volumes have no filesystem")
	require.Equal(t, int64(2)<<20, alignUp(1<<20+1))
}
