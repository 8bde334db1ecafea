package datavolume

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// The expected values below are what CDI v1.66's webhooks answered to the
// same requests.

// cause is one expected StatusCause.
type cause struct {
	typ        metav1.CauseType
	field, msg string
}

func fieldInvalid(field, msg string) cause {
	return cause{metav1.CauseTypeFieldValueInvalid, field, msg}
}

// want is an expected admission response.
type want struct {
	allowed bool
	code    int32
	msg     string
	causes  []cause
}

var allowed = want{allowed: true}

// denied is a 422 with the causes, the message being theirs after one
// space each.
func denied(causes ...cause) want {
	w := want{code: 422}
	for _, c := range causes {
		w.msg += " " + c.msg
		w.causes = append(w.causes, c)
	}
	return w
}

// invalidAt is a 422 with one FieldValueInvalid cause.
func invalidAt(field, msg string) want { return denied(fieldInvalid(field, msg)) }

func badRequest(msg string) want { return want{code: 400, msg: msg} }

func requireResponse(t *testing.T, w want, resp admission.Response, name string) {
	t.Helper()
	require.Equal(t, w.allowed, resp.Allowed, name)
	if w.allowed {
		require.Nil(t, resp.Result, name)
		return
	}
	require.NotNil(t, resp.Result, name)
	require.Equal(t, w.code, resp.Result.Code, name)
	require.Equal(t, w.msg, resp.Result.Message, name)
	require.Empty(t, resp.Result.Reason, name)
	if w.causes == nil {
		require.Nil(t, resp.Result.Details, name)
		return
	}
	require.Len(t, resp.Result.Details.Causes, len(w.causes), name)
	for i, c := range w.causes {
		got := resp.Result.Details.Causes[i]
		require.Equal(t, c, cause{got.Type, got.Field, got.Message}, "%s: cause %d", name, i)
	}
}

var dvResource = metav1.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "datavolumes"}

// request is an admission request for obj (and old on UPDATE), made by
// alice in namespace ns.
func request(t *testing.T, op admissionv1.Operation, obj, old any) admission.Request {
	t.Helper()
	raw, err := json.Marshal(obj)
	require.NoError(t, err)
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, Resource: dvResource, Namespace: "ns", Name: "dv",
		Object: runtime.RawExtension{Raw: raw}, UserInfo: authenticationv1.UserInfo{Username: "alice"},
	}}
	if old != nil {
		raw, err := json.Marshal(old)
		require.NoError(t, err)
		req.OldObject = runtime.RawExtension{Raw: raw}
	}
	return req
}

func size(s string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(s)}
}

// newDV is a valid http import into the storage form, edited.
func newDV(edit func(*cdiv1.DataVolume)) *cdiv1.DataVolume {
	dv := &cdiv1.DataVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: "cdi.kubevirt.io/v1beta1", Kind: "DataVolume"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "dv"},
		Spec: cdiv1.DataVolumeSpec{
			Source:  &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "https://images.example/disk.qcow2"}},
			Storage: &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{Requests: size("1Gi")}},
		},
	}
	if edit != nil {
		edit(dv)
	}
	return dv
}

// pvcForm switches the target to the pvc form.
func pvcForm(dv *cdiv1.DataVolume, requests corev1.ResourceList, modes ...corev1.PersistentVolumeAccessMode) {
	dv.Spec.Storage = nil
	dv.Spec.PVC = &corev1.PersistentVolumeClaimSpec{AccessModes: modes, Resources: corev1.VolumeResourceRequirements{Requests: requests}}
}

func pvcSource(dv *cdiv1.DataVolume, ns, name string) {
	dv.Spec.Source = &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: ns, Name: name}}
}

func sourceRef(dv *cdiv1.DataVolume, name string) {
	dv.Spec.Source, dv.Spec.SourceRef = nil, &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: name}
}

type dvCase struct {
	name string
	edit func(*cdiv1.DataVolume)
	want want
}

func runCreates(t *testing.T, v *Validator, cases []dvCase) {
	t.Helper()
	for _, c := range cases {
		resp := v.Handle(context.Background(), request(t, admissionv1.Create, newDV(c.edit), nil))
		requireResponse(t, c.want, resp, c.name)
	}
}

func TestTargetIsCheckedAsCDIDoes(t *testing.T) {
	rwo := corev1.ReadWriteOnce
	sizeAt := func(form string) string { return "spec." + form + ".resources.requests.size" }
	runCreates(t, &Validator{}, []dvCase{
		{"valid", nil, allowed},
		{"name too long", func(dv *cdiv1.DataVolume) { dv.Name = strings.Repeat("a", 254) },
			invalidAt("", "Name cannot be longer than 253 characters")},
		{"no target", func(dv *cdiv1.DataVolume) { dv.Spec.Storage = nil }, invalidAt("spec.PVC", "Missing Data volume PVC")},
		{"both targets", func(dv *cdiv1.DataVolume) { dv.Spec.PVC = &corev1.PersistentVolumeClaimSpec{} },
			invalidAt("spec.PVC.Storage", "Duplicate storage definition, both target storage and target pvc defined")},
		{"pvc size 0", func(dv *cdiv1.DataVolume) { pvcForm(dv, size("0"), rwo) },
			invalidAt(sizeAt("PVC"), "PVC size can't be equal or less than zero")},
		{"storage size -1", func(dv *cdiv1.DataVolume) { dv.Spec.Storage.Resources.Requests = size("-1") },
			invalidAt(sizeAt("Storage"), "Storage size can't be equal or less than zero")},
		{"pvc size 1Ki", func(dv *cdiv1.DataVolume) { pvcForm(dv, size("1Ki"), rwo) },
			invalidAt(sizeAt("PVC"), "PVC size should be at least 1MiB")},
		{"storage size 1Ki", func(dv *cdiv1.DataVolume) { dv.Spec.Storage.Resources.Requests = size("1Ki") },
			invalidAt(sizeAt("Storage"), "Storage size should be at least 1MiB")},
		{"pvc size missing", func(dv *cdiv1.DataVolume) { pvcForm(dv, nil, rwo) }, invalidAt(sizeAt("PVC"), "PVC size is missing")},
		{"pvc size missing, pvc clone", func(dv *cdiv1.DataVolume) { pvcForm(dv, nil, rwo); pvcSource(dv, "ns", "src") },
			invalidAt(sizeAt("PVC"), "PVC size is missing")},
		{"storage size missing, http", func(dv *cdiv1.DataVolume) { dv.Spec.Storage.Resources.Requests = nil },
			invalidAt(sizeAt("Storage"), "Storage size is missing")},
		{"storage size missing, pvc clone", func(dv *cdiv1.DataVolume) { dv.Spec.Storage.Resources.Requests = nil; pvcSource(dv, "ns", "src") },
			allowed},
		{"storage size missing, sourceRef", func(dv *cdiv1.DataVolume) { dv.Spec.Storage.Resources.Requests = nil; sourceRef(dv, "golden") },
			allowed},
		{"storage class name too long", func(dv *cdiv1.DataVolume) { dv.Spec.Storage.StorageClassName = ptr.To(strings.Repeat("c", 254)) },
			invalidAt("", "Name cannot be longer than 253 characters")},
		{"pvc no access modes", func(dv *cdiv1.DataVolume) { pvcForm(dv, size("1Gi")) },
			invalidAt("spec.PVC.accessModes", "Required value: at least 1 access mode is required")},
		{"pvc two access modes", func(dv *cdiv1.DataVolume) { pvcForm(dv, size("1Gi"), rwo, corev1.ReadOnlyMany) },
			invalidAt("spec.PVC.accessModes", "PVC multiple accessModes")},
		{"pvc unknown access mode", func(dv *cdiv1.DataVolume) { pvcForm(dv, size("1Gi"), "Foo") },
			invalidAt("spec.PVC.accessModes", `Unsupported value: "Foo": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`)},
		{"pvc ReadWriteOncePod", func(dv *cdiv1.DataVolume) { pvcForm(dv, size("1Gi"), corev1.ReadWriteOncePod) }, allowed},
		{"storage unknown second access mode names the first", func(dv *cdiv1.DataVolume) {
			dv.Spec.Storage.AccessModes = []corev1.PersistentVolumeAccessMode{rwo, "Foo"}
		}, invalidAt("spec.PVC.accessModes", `Unsupported value: "ReadWriteOnce": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`)},
		{"storage two access modes", func(dv *cdiv1.DataVolume) {
			dv.Spec.Storage.AccessModes = []corev1.PersistentVolumeAccessMode{rwo, corev1.ReadWriteMany}
		}, allowed},
		{"size missing wins over a bad url", func(dv *cdiv1.DataVolume) { pvcForm(dv, nil, rwo); dv.Spec.Source.HTTP.URL = "" },
			invalidAt(sizeAt("PVC"), "PVC size is missing")},
		{"access modes win over no source", func(dv *cdiv1.DataVolume) { pvcForm(dv, size("1Gi")); dv.Spec.Source = nil },
			invalidAt("spec.PVC.accessModes", "Required value: at least 1 access mode is required")},
	})
}

func TestSourceAndSourceRefAreCheckedAsCDIDoes(t *testing.T) {
	runCreates(t, &Validator{}, []dvCase{
		{"no source no sourceRef", func(dv *cdiv1.DataVolume) { dv.Spec.Source = nil },
			invalidAt("spec.source", "Data volume should have either Source or SourceRef, or be externally populated")},
		{"both source and sourceRef", func(dv *cdiv1.DataVolume) {
			dv.Spec.SourceRef = &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: "golden"}
		}, invalidAt("spec.source", "Data volume should have either Source or SourceRef, or be externally populated")},
		{"sourceRef kind empty", func(dv *cdiv1.DataVolume) { sourceRef(dv, "golden"); dv.Spec.SourceRef.Kind = "" },
			invalidAt("spec.sourceRef.Kind", "Missing sourceRef kind")},
		{"sourceRef kind Foo", func(dv *cdiv1.DataVolume) { sourceRef(dv, "golden"); dv.Spec.SourceRef.Kind = "Foo" },
			invalidAt("spec.sourceRef.Kind", "Unsupported sourceRef kind Foo, currently only DataSource is supported")},
		{"sourceRef name empty", func(dv *cdiv1.DataVolume) { sourceRef(dv, "") },
			invalidAt("spec.sourceRef.Name", "Missing sourceRef name")},
		{"sourceRef is not looked up without a client", func(dv *cdiv1.DataVolume) { sourceRef(dv, "nope") }, allowed},
	})
}

func TestExternalPopulationReportsEveryProblemThenIsRefusedHere(t *testing.T) {
	ds := &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "claim"}
	dsRef := &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "claim"}
	refused := invalidAt("spec.source", unsupportedPopulation)
	runCreates(t, &Validator{}, []dvCase{
		{"dataSource and source", func(dv *cdiv1.DataVolume) { dv.Spec.Storage.DataSource = ds },
			invalidAt("spec.source", "External population is incompatible with Source and SourceRef")},
		{"identical dataSource and dataSourceRef", func(dv *cdiv1.DataVolume) {
			dv.Spec.Source, dv.Spec.Storage.DataSource, dv.Spec.Storage.DataSourceRef = nil, ds, dsRef
		}, invalidAt("", "DataSourceRef and DataSource must match")},
		{"pvc dataSourceRef without apiGroup and sourceRef", func(dv *cdiv1.DataVolume) {
			pvcForm(dv, size("1Gi"), corev1.ReadWriteOnce)
			sourceRef(dv, "golden")
			dv.Spec.PVC.DataSourceRef = &corev1.TypedObjectReference{Kind: "VolumeImportSource", Name: "x"}
		}, denied(fieldInvalid("spec.source", "External population is incompatible with Source and SourceRef"),
			fieldInvalid("spec.dataSourceRef.apiGroup[]", "Required value: DataSourceRef apiGroup when kind is not 'PersistentVolumeClaim'"))},
		{"every problem", func(dv *cdiv1.DataVolume) {
			dv.Spec.Storage.DataSource = &corev1.TypedLocalObjectReference{}
			dv.Spec.Storage.DataSourceRef = &corev1.TypedObjectReference{Namespace: ptr.To("other")}
		}, denied(
			fieldInvalid("spec.source", "External population is incompatible with Source and SourceRef"),
			fieldInvalid("", "DataSourceRef and DataSource must match"),
			fieldInvalid("spec.dataSource.name[]", "Required value: DataSource name"),
			fieldInvalid("spec.dataSource.kind", "Required value: DataSource kind"),
			fieldInvalid("spec.dataSource.apiGroup[]", "Required value: DataSource apiGroup when kind is not 'PersistentVolumeClaim'"),
			fieldInvalid("spec.dataSourceRef.namespace[]", "Invalid value: DataSourceRef namespace not supported"),
			fieldInvalid("spec.dataSourceRef.name[]", "Required value: DataSourceRef name"),
			fieldInvalid("spec.dataSourceRef.kind", "Required value: DataSourceRef kind"),
			fieldInvalid("spec.dataSourceRef.apiGroup[]", "Required value: DataSourceRef apiGroup when kind is not 'PersistentVolumeClaim'"),
		)},
		{"valid claim dataSource without apiGroup", func(dv *cdiv1.DataVolume) { dv.Spec.Source, dv.Spec.Storage.DataSource = nil, ds }, refused},
		{"valid populator dataSourceRef", func(dv *cdiv1.DataVolume) {
			dv.Spec.Source = nil
			dv.Spec.Storage.DataSourceRef = &corev1.TypedObjectReference{APIGroup: ptr.To("cdi.kubevirt.io"), Kind: "VolumeImportSource", Name: "x"}
		}, refused},
	})
}

func TestUpdateKeepsTheSpecButStillValidatesIt(t *testing.T) {
	v := &Validator{}
	update := func(old, cur *cdiv1.DataVolume) admission.Response {
		return v.Handle(context.Background(), request(t, admissionv1.Update, cur, old))
	}
	old := newDV(nil)
	requireResponse(t, denied(cause{metav1.CauseTypeFieldValueDuplicate, "DataVolume.Spec", "Cannot update DataVolume Spec"}),
		update(old, newDV(func(dv *cdiv1.DataVolume) { dv.Spec.Source.HTTP.URL = "https://images.example/other.qcow2" })), "spec changed")
	requireResponse(t, allowed, update(old, newDV(func(dv *cdiv1.DataVolume) { dv.Labels = map[string]string{"a": "b"} })), "metadata only")

	long := func(dv *cdiv1.DataVolume) { dv.Name = strings.Repeat("a", 254) }
	requireResponse(t, denied(cause{metav1.CauseTypeFieldValueDuplicate, "DataVolume.Spec", "Cannot update DataVolume Spec"}),
		update(newDV(long), newDV(func(dv *cdiv1.DataVolume) { long(dv); dv.Spec.Storage.Resources.Requests = size("2Gi") })),
		"the spec is checked before the name")

	emptyURL := func(dv *cdiv1.DataVolume) { dv.Spec.Source.HTTP.URL = "" }
	requireResponse(t, invalidAt("spec.source.HTTP.url", "spec.source source URL is empty"),
		update(newDV(emptyURL), newDV(func(dv *cdiv1.DataVolume) { emptyURL(dv); dv.Labels = map[string]string{"a": "b"} })),
		"a stored invalid spec is still refused")

	vddk := func(dv *cdiv1.DataVolume) {
		dv.Spec.Source = &cdiv1.DataVolumeSource{VDDK: &cdiv1.DataVolumeSourceVDDK{URL: "https://vcenter/sdk", UUID: "u",
			BackingFile: "[ds] vm.vmdk", Thumbprint: "t", SecretRef: "s"}}
		dv.Spec.Checkpoints = []cdiv1.DataVolumeCheckpoint{{Previous: "", Current: "c1"}}
	}
	more := func(dv *cdiv1.DataVolume) {
		vddk(dv)
		dv.Spec.Checkpoints = append(dv.Spec.Checkpoints, cdiv1.DataVolumeCheckpoint{Previous: "c1", Current: "c2"})
		dv.Spec.FinalCheckpoint = true
	}
	requireResponse(t, allowed, update(newDV(vddk), newDV(more)), "a multi-stage import moves its checkpoints")
	requireResponse(t, denied(cause{metav1.CauseTypeFieldValueDuplicate, "DataVolume.Spec", "Cannot update DataVolume Spec"}),
		update(newDV(vddk), newDV(func(dv *cdiv1.DataVolume) { more(dv); dv.Spec.Storage.Resources.Requests = size("2Gi") })),
		"but nothing else")
}

func TestRequestsCDICannotReadAreBadRequests(t *testing.T) {
	v := &Validator{}
	req := request(t, admissionv1.Create, newDV(nil), nil)
	req.Resource.Resource = "dataimportcrons"
	requireResponse(t, badRequest("expect resource to be 'datavolumes'"), v.Handle(context.Background(), req), "wrong resource")

	req = request(t, admissionv1.Create, map[string]any{"spec": 1}, nil)
	requireResponse(t, badRequest("json: cannot unmarshal number into Go struct field DataVolume.spec of type v1beta1.DataVolumeSpec"),
		v.Handle(context.Background(), req), "bad json")
}

func TestUsableSizeLeavesTheFilesystemOverhead(t *testing.T) {
	fs := corev1.PersistentVolumeFilesystem
	block := corev1.PersistentVolumeBlock
	require.Equal(t, int64(967)<<20, usableSize(1<<30, 0.055, &fs), "1Gi less 5.5%, aligned down to MiB")
	require.Equal(t, int64(1)<<30, usableSize(1<<30, 0.055, &block), "block volumes have no filesystem")
	require.Equal(t, int64(2)<<20, alignUp(1<<20+1))
}
