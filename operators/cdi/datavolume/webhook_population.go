package datavolume

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
)

// pvcKind is the one populator kind that needs no apiGroup.
const pvcKind = "PersistentVolumeClaim"

// populationRefs are the target's dataSource and dataSourceRef, which make
// the DataVolume externally populated.
func populationRefs(spec *cdiv1.DataVolumeSpec) (*corev1.TypedLocalObjectReference, *corev1.TypedObjectReference) {
	if spec.PVC != nil {
		return spec.PVC.DataSource, spec.PVC.DataSourceRef
	}
	if spec.Storage != nil {
		return spec.Storage.DataSource, spec.Storage.DataSourceRef
	}
	return nil, nil
}

// validateExternalPopulation reports every problem of an externally
// populated DataVolume at once, as CDI does; nil when there is none.
func validateExternalPopulation(f *field.Path, spec *cdiv1.DataVolumeSpec,
	ds *corev1.TypedLocalObjectReference, ref *corev1.TypedObjectReference) []metav1.StatusCause {
	var causes []metav1.StatusCause
	if spec.Source != nil || spec.SourceRef != nil {
		causes = append(causes, cdiadmission.InvalidCause(f.Child("source"), "External population is incompatible with Source and SourceRef"))
	}
	// CDI compares the two references as values of their two different
	// types, which never match: setting both is always refused.
	if ds != nil && ref != nil {
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Message: "DataSourceRef and DataSource must match"})
	}
	if ds != nil {
		causes = append(causes, validateDataSource(f.Child("dataSource"), ds)...)
	}
	if ref != nil {
		causes = append(causes, validateDataSourceRef(f.Child("dataSourceRef"), ref)...)
	}
	return causes
}

// validateDataSource wants a name, a kind, and an apiGroup for any kind
// but a claim. CDI's paths end some of these fields with "[]".
func validateDataSource(f *field.Path, ds *corev1.TypedLocalObjectReference) []metav1.StatusCause {
	var causes []metav1.StatusCause
	if ds.Name == "" {
		causes = append(causes, cdiadmission.InvalidCause(f.Child("name", ""), "Required value: DataSource name"))
	}
	if ds.Kind == "" {
		causes = append(causes, cdiadmission.InvalidCause(f.Child("kind"), "Required value: DataSource kind"))
	}
	if ptr.Deref(ds.APIGroup, "") == "" && ds.Kind != pvcKind {
		causes = append(causes, cdiadmission.InvalidCause(f.Child("apiGroup", ""),
			"Required value: DataSource apiGroup when kind is not 'PersistentVolumeClaim'"))
	}
	return causes
}

// validateDataSourceRef is validateDataSource for dataSourceRef, which
// also may not name another namespace.
func validateDataSourceRef(f *field.Path, ref *corev1.TypedObjectReference) []metav1.StatusCause {
	var causes []metav1.StatusCause
	if ptr.Deref(ref.Namespace, "") != "" {
		causes = append(causes, cdiadmission.InvalidCause(f.Child("namespace", ""), "Invalid value: DataSourceRef namespace not supported"))
	}
	if ref.Name == "" {
		causes = append(causes, cdiadmission.InvalidCause(f.Child("name", ""), "Required value: DataSourceRef name"))
	}
	if ref.Kind == "" {
		causes = append(causes, cdiadmission.InvalidCause(f.Child("kind"), "Required value: DataSourceRef kind"))
	}
	if ptr.Deref(ref.APIGroup, "") == "" && ref.Kind != pvcKind {
		causes = append(causes, cdiadmission.InvalidCause(f.Child("apiGroup", ""),
			"Required value: DataSourceRef apiGroup when kind is not 'PersistentVolumeClaim'"))
	}
	return causes
}
