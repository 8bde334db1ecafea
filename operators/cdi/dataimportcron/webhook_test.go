package dataimportcron

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// The expected values below are what CDI v1.66's dataimportcron-validate
// webhook answered to the same requests.

// verdict is an expected response: allowed, or a code, message and the
// (type, field, message) of each cause.
type verdict struct {
	allowed bool
	code    int32
	msg     string
	causes  [][3]string
}

var admitted = verdict{allowed: true}

func invalidAt(field, msg string) verdict {
	return verdict{code: 422, msg: " " + msg, causes: [][3]string{{string(metav1.CauseTypeFieldValueInvalid), field, msg}}}
}

func requireVerdict(t *testing.T, want verdict, resp admission.Response, name string) {
	t.Helper()
	require.Equal(t, want.allowed, resp.Allowed, name)
	if want.allowed {
		require.Nil(t, resp.Result, name)
		return
	}
	require.Equal(t, want.code, resp.Result.Code, name)
	require.Equal(t, want.msg, resp.Result.Message, name)
	require.Empty(t, resp.Result.Reason, name)
	if want.causes == nil {
		require.Nil(t, resp.Result.Details, name)
		return
	}
	var got [][3]string
	for _, c := range resp.Result.Details.Causes {
		got = append(got, [3]string{string(c.Type), c.Field, c.Message})
	}
	require.Equal(t, want.causes, got, name)
}

func cronRequest(t *testing.T, op admissionv1.Operation, obj, old *cdiv1.DataImportCron) admission.Request {
	t.Helper()
	raw, err := json.Marshal(obj)
	require.NoError(t, err)
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, Namespace: "ns", Name: obj.Name, Object: runtime.RawExtension{Raw: raw},
		Resource: metav1.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "dataimportcrons"},
	}}
	if old != nil {
		raw, err := json.Marshal(old)
		require.NoError(t, err)
		req.OldObject = runtime.RawExtension{Raw: raw}
	}
	return req
}

// newCron is a valid registry cron, edited.
func newCron(edit func(*cdiv1.DataImportCron)) *cdiv1.DataImportCron {
	c := &cdiv1.DataImportCron{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cron"},
		Spec: cdiv1.DataImportCronSpec{
			Schedule: "0 */12 * * *", ManagedDataSource: "fedora",
			Template: cdiv1.DataVolume{Spec: cdiv1.DataVolumeSpec{
				Source: &cdiv1.DataVolumeSource{Registry: &cdiv1.DataVolumeSourceRegistry{URL: ptr.To("docker://quay.io/containerdisks/fedora:latest")}},
				Storage: &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")},
				}},
			}},
		},
	}
	if edit != nil {
		edit(c)
	}
	return c
}

func tmplSource(s cdiv1.DataVolumeSource) func(*cdiv1.DataImportCron) {
	return func(c *cdiv1.DataImportCron) { c.Spec.Template.Spec.Source = &s }
}

func TestCronCreateIsCheckedAsCDIDoes(t *testing.T) {
	unsettable := invalidAt("spec.Template", "Unsettable fields: SourceRef, ContentType, Checkpoints, FinalCheckpoint")
	bad := cdiv1.RegistryPullMethod("x")
	gc := cdiv1.DataImportCronGarbageCollect("foo")
	cases := []struct {
		name string
		edit func(*cdiv1.DataImportCron)
		want verdict
	}{
		{"valid", nil, admitted},
		{"name too long", func(c *cdiv1.DataImportCron) { c.Name = strings.Repeat("c", 64) }, invalidAt("", "Name cannot be longer than 63 characters")},
		{"no source", func(c *cdiv1.DataImportCron) { c.Spec.Template.Spec.Source = nil }, invalidAt("spec.Template", "Missing source")},
		{"s3 source", tmplSource(cdiv1.DataVolumeSource{S3: &cdiv1.DataVolumeSourceS3{URL: "https://s3/x"}}), invalidAt("spec.Template", "Missing source")},
		{"contentType", func(c *cdiv1.DataImportCron) { c.Spec.Template.Spec.ContentType = cdiv1.DataVolumeKubeVirt }, unsettable},
		{"sourceRef", func(c *cdiv1.DataImportCron) {
			c.Spec.Template.Spec.SourceRef = &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: "x"}
		}, unsettable},
		{"finalCheckpoint", func(c *cdiv1.DataImportCron) { c.Spec.Template.Spec.FinalCheckpoint = true }, unsettable},
		{"template without storage", func(c *cdiv1.DataImportCron) { c.Spec.Template.Spec.Storage = nil }, invalidAt("Template.PVC", "Missing Data volume PVC")},
		{"template without size", func(c *cdiv1.DataImportCron) { c.Spec.Template.Spec.Storage.Resources.Requests = nil },
			invalidAt("Template.Storage.resources.requests.size", "Storage size is missing")},
		{"template pvc without access modes", func(c *cdiv1.DataImportCron) {
			c.Spec.Template.Spec.PVC, c.Spec.Template.Spec.Storage = &corev1.PersistentVolumeClaimSpec{Resources: c.Spec.Template.Spec.Storage.Resources}, nil
		}, invalidAt("Template.PVC.accessModes", "Required value: at least 1 access mode is required")},
		{"template registry scheme", tmplSource(cdiv1.DataVolumeSource{Registry: &cdiv1.DataVolumeSourceRegistry{URL: ptr.To("http://a")}}),
			invalidAt("Template.source.Registry.URL", "Illegal registry source URL scheme http://a")},
		{"template registry pull method", func(c *cdiv1.DataImportCron) { c.Spec.Template.Spec.Source.Registry.PullMethod = &bad },
			invalidAt("Template.source.Registry.importMethod", `ImportMethod x is neither pod, node or ""`)},
		{"template registry and http", func(c *cdiv1.DataImportCron) {
			c.Spec.Template.Spec.Source.HTTP = &cdiv1.DataVolumeSourceHTTP{URL: "http://a/b"}
		}, invalidAt("Template.source", "Multiple Data volume sources")},
		{"template externally populated", func(c *cdiv1.DataImportCron) {
			c.Spec.Template.Spec.Storage.DataSourceRef = &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "x"}
		}, invalidAt("Template.source", "External population is incompatible with Source and SourceRef")},
		{"template pvc source without namespace", tmplSource(cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Name: "x"}}),
			invalidAt("Template.source.PVC", "Template.source.PVC source PVC is not valid")},
		{"bad schedule", func(c *cdiv1.DataImportCron) { c.Spec.Schedule = "every day" }, invalidAt("spec.Schedule", "Illegal cron schedule")},
		{"descriptor schedule", func(c *cdiv1.DataImportCron) { c.Spec.Schedule = "@daily" }, admitted},
		{"no schedule", func(c *cdiv1.DataImportCron) { c.Spec.Schedule = "" }, admitted},
		{"importsToKeep -1", func(c *cdiv1.DataImportCron) { c.Spec.ImportsToKeep = ptr.To(int32(-1)) }, invalidAt("spec.ImportsToKeep", "Illegal ImportsToKeep value")},
		{"garbageCollect foo", func(c *cdiv1.DataImportCron) { c.Spec.GarbageCollect = &gc }, invalidAt("spec.GarbageCollect", "Illegal GarbageCollect value")},
		{"no managed DataSource", func(c *cdiv1.DataImportCron) { c.Spec.ManagedDataSource = "" },
			invalidAt("spec.ManagedDataSource", "Illegal ManagedDataSource value")},
		{"managed DataSource too long", func(c *cdiv1.DataImportCron) { c.Spec.ManagedDataSource = strings.Repeat("d", 64) },
			invalidAt("", "Name cannot be longer than 63 characters")},
	}
	for _, c := range cases {
		resp := (&Validator{}).Handle(context.Background(), cronRequest(t, admissionv1.Create, newCron(c.edit), nil))
		requireVerdict(t, c.want, resp, c.name)
	}
}

// virtflow polls http sources, which CDI would call missing, and cannot
// poll claims or image streams, which CDI accepts.
func TestCronSourcesFollowWhatVirtflowCanPoll(t *testing.T) {
	node := cdiv1.RegistryPullNode
	refused := invalidAt("spec.Template", unsupportedTemplate)
	cases := []struct {
		name string
		edit func(*cdiv1.DataImportCron)
		want verdict
	}{
		{"http", tmplSource(cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "https://images.example/fedora.qcow2"}}), admitted},
		{"invalid http", tmplSource(cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "ftp://a/b"}}),
			invalidAt("Template.source.HTTP.url", "Template.source Invalid source URL scheme: ftp://a/b")},
		{"pvc", tmplSource(cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: "ns", Name: "x"}}), refused},
		{"image stream", tmplSource(cdiv1.DataVolumeSource{Registry: &cdiv1.DataVolumeSourceRegistry{ImageStream: ptr.To("is"), PullMethod: &node}}), refused},
	}
	for _, c := range cases {
		resp := (&Validator{}).Handle(context.Background(), cronRequest(t, admissionv1.Create, newCron(c.edit), nil))
		requireVerdict(t, c.want, resp, c.name)
	}
}

func TestCronUpdateChecksOnlyTheNameAndThatTheSpecIsKept(t *testing.T) {
	v := &Validator{}
	update := func(old, cur *cdiv1.DataImportCron) admission.Response {
		return v.Handle(context.Background(), cronRequest(t, admissionv1.Update, cur, old))
	}
	requireVerdict(t, verdict{code: 422, msg: " Cannot update DataImportCron Spec",
		causes: [][3]string{{string(metav1.CauseTypeFieldValueDuplicate), "DataImportCron.Spec", "Cannot update DataImportCron Spec"}}},
		update(newCron(nil), newCron(func(c *cdiv1.DataImportCron) { c.Spec.Schedule = "0 0 * * *" })), "schedule changed")

	invalid := func(c *cdiv1.DataImportCron) { c.Spec.ManagedDataSource = "" }
	requireVerdict(t, admitted, update(newCron(invalid), newCron(func(c *cdiv1.DataImportCron) {
		invalid(c)
		c.Labels = map[string]string{"a": "b"}
	})), "a stored invalid spec is not checked again")

	long := func(c *cdiv1.DataImportCron) { c.Name = strings.Repeat("c", 64) }
	requireVerdict(t, invalidAt("", "Name cannot be longer than 63 characters"), update(newCron(long), newCron(long)), "the name is")
}

func TestCronRequestsCDICannotReadAreBadRequests(t *testing.T) {
	req := cronRequest(t, admissionv1.Create, newCron(nil), nil)
	req.Resource.Resource = "datavolumes"
	requireVerdict(t, verdict{code: 400, msg: "unexpected resource: datavolumes"}, (&Validator{}).Handle(context.Background(), req), "wrong resource")

	req = cronRequest(t, admissionv1.Create, newCron(nil), nil)
	req.Object.Raw = []byte(`{"spec":{"schedule":1}}`)
	requireVerdict(t, verdict{code: 400, msg: "json: cannot unmarshal number into Go struct field DataImportCronSpec.spec.schedule of type string"},
		(&Validator{}).Handle(context.Background(), req), "bad json")
}
