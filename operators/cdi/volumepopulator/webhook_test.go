package volumepopulator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// The expected causes are CDI v1.66's populator-validate webhook's for the
// same objects (pkg/apiserver/webhooks/populators-validate.go and util.go).

var importSourceResource = metav1.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "volumeimportsources"}

func review(t *testing.T, op admissionv1.Operation, obj, old *cdiv1.VolumeImportSource) admission.Response {
	t.Helper()
	raw, err := json.Marshal(obj)
	require.NoError(t, err)
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, Resource: importSourceResource, Namespace: "ns", Name: obj.Name,
		Object: runtime.RawExtension{Raw: raw},
	}}
	if old != nil {
		raw, err := json.Marshal(old)
		require.NoError(t, err)
		req.OldObject = runtime.RawExtension{Raw: raw}
	}
	return (&Validator{}).Handle(context.Background(), req)
}

func importSource(spec cdiv1.VolumeImportSourceSpec) *cdiv1.VolumeImportSource {
	return &cdiv1.VolumeImportSource{ObjectMeta: metav1.ObjectMeta{Name: "src", Namespace: "ns"}, Spec: spec}
}

func httpSource(url string) *cdiv1.ImportSourceType {
	return &cdiv1.ImportSourceType{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: url}}
}

// requireCause wants a 422 whose one cause is typ at field with msg, and
// whose message is CDI's: the cause's message after a space.
func requireCause(t *testing.T, resp admission.Response, typ metav1.CauseType, field, msg string) {
	t.Helper()
	require.False(t, resp.Allowed)
	require.EqualValues(t, 422, resp.Result.Code)
	require.Equal(t, " "+msg, resp.Result.Message)
	require.Equal(t, []metav1.StatusCause{{Type: typ, Field: field, Message: msg}}, resp.Result.Details.Causes)
}

func TestImportSourcesAreCheckedAsCDIDoes(t *testing.T) {
	invalid := metav1.CauseTypeFieldValueInvalid
	for name, c := range map[string]struct {
		spec       cdiv1.VolumeImportSourceSpec
		field, msg string
	}{
		"no source":   {cdiv1.VolumeImportSourceSpec{Source: &cdiv1.ImportSourceType{}}, "spec.source", "Missing VolumeImport source"},
		"nil source":  {cdiv1.VolumeImportSourceSpec{}, "spec.source", "Missing VolumeImport source"},
		"two sources": {cdiv1.VolumeImportSourceSpec{Source: &cdiv1.ImportSourceType{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://a/b"}, Blank: &cdiv1.DataVolumeBlankImage{}}}, "spec.source", "Multiple VolumeImport sources"},
		"content type first": {cdiv1.VolumeImportSourceSpec{ContentType: "iso", Source: &cdiv1.ImportSourceType{}},
			"spec.contentType", "ContentType not one of: kubevirt, archive"},
		"empty url":  {cdiv1.VolumeImportSourceSpec{Source: httpSource("")}, "spec.source.HTTP.url", "spec.source source URL is empty"},
		"bad url":    {cdiv1.VolumeImportSourceSpec{Source: httpSource("not a url")}, "spec.source.HTTP.url", "spec.source Invalid source URL: not a url"},
		"bad scheme": {cdiv1.VolumeImportSourceSpec{Source: httpSource("ftp://a/b")}, "spec.source.HTTP.url", "spec.source Invalid source URL scheme: ftp://a/b"},
		"blank archive": {cdiv1.VolumeImportSourceSpec{ContentType: cdiv1.DataVolumeArchive, Source: &cdiv1.ImportSourceType{Blank: &cdiv1.DataVolumeBlankImage{}}},
			"spec.contentType", "SourceType cannot be blank and the contentType be archive"},
		"registry archive": {cdiv1.VolumeImportSourceSpec{ContentType: cdiv1.DataVolumeArchive, Source: &cdiv1.ImportSourceType{Registry: &cdiv1.DataVolumeSourceRegistry{URL: ptr.To("docker://a/b")}}},
			"spec.contentType", "ContentType must be kubevirt when Source is Registry"},
		"registry scheme": {cdiv1.VolumeImportSourceSpec{Source: &cdiv1.ImportSourceType{Registry: &cdiv1.DataVolumeSourceRegistry{URL: ptr.To("http://a/b")}}},
			"spec.source.Registry.URL", "Illegal registry source URL scheme http://a/b"},
		"multi-stage without target": {cdiv1.VolumeImportSourceSpec{Checkpoints: []cdiv1.DataVolumeCheckpoint{{Current: "b", Previous: "a"}},
			Source: &cdiv1.ImportSourceType{VDDK: &cdiv1.DataVolumeSourceVDDK{URL: "https://v/sdk"}}},
			"spec.targetClaim", "Unable to do multi-stage import without specifying a target claim"},
		"vddk": {cdiv1.VolumeImportSourceSpec{Source: &cdiv1.ImportSourceType{VDDK: &cdiv1.DataVolumeSourceVDDK{URL: "https://v/sdk"}}},
			"spec.source.VDDK", "spec.source.VDDK source VDDK is not valid"},
	} {
		t.Run(name, func(t *testing.T) {
			requireCause(t, review(t, admissionv1.Create, importSource(c.spec), nil), invalid, c.field, c.msg)
		})
	}
}

func TestImportSourceNamesAreDNS1035Labels(t *testing.T) {
	src := importSource(cdiv1.VolumeImportSourceSpec{Source: httpSource("http://images/disk.img")})
	src.Name = strings.Repeat("a", 64)
	resp := review(t, admissionv1.Create, src, nil)
	require.False(t, resp.Allowed)
	require.Equal(t, []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: "Name cannot be longer than 63 characters"}},
		resp.Result.Details.Causes)
	src.Name = strings.Repeat("a", 63)
	require.True(t, review(t, admissionv1.Create, src, nil).Allowed)
}

func TestAnImportSourceSpecCannotChange(t *testing.T) {
	old := importSource(cdiv1.VolumeImportSourceSpec{Source: httpSource("http://images/disk.img")})
	changed := old.DeepCopy()
	changed.Spec.Source.HTTP.URL = "http://images/other.img"
	requireCause(t, review(t, admissionv1.Update, changed, old), metav1.CauseTypeFieldValueDuplicate,
		"VolumeImportSource.Spec", "Cannot update VolumeImportSource Spec")
	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"a": "b"}
	require.True(t, review(t, admissionv1.Update, labelled, old).Allowed)
}

func TestAMultiStageImportMayAdvanceItsCheckpoints(t *testing.T) {
	spec := cdiv1.VolumeImportSourceSpec{TargetClaim: ptr.To("disk"), Checkpoints: []cdiv1.DataVolumeCheckpoint{{Current: "b", Previous: "a"}},
		Source: &cdiv1.ImportSourceType{VDDK: &cdiv1.DataVolumeSourceVDDK{URL: "https://v/sdk", UUID: "u", BackingFile: "f", Thumbprint: "t", SecretRef: "s"}}}
	old := importSource(spec)
	next := old.DeepCopy()
	next.Spec.Checkpoints = append(next.Spec.Checkpoints, cdiv1.DataVolumeCheckpoint{Current: "c", Previous: "b"})
	next.Spec.FinalCheckpoint = ptr.To(true)
	require.True(t, review(t, admissionv1.Update, next, old).Allowed)
}

func TestWhatThePopulatorCannotFillIsRefusedAfterCDIsChecks(t *testing.T) {
	for name, c := range map[string]struct {
		src        *cdiv1.ImportSourceType
		field, msg string
	}{
		"s3": {&cdiv1.ImportSourceType{S3: &cdiv1.DataVolumeSourceS3{URL: "https://s3/b/disk"}}, "spec.source",
			"only http, registry, upload, pvc and blank sources are supported by this virtflow release"},
		"checksum": {&cdiv1.ImportSourceType{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://a/b", Checksum: "sha256:" + strings.Repeat("0", 64)}},
			"spec.source.http.checksum", "spec.source.http.checksum is not supported yet by this virtflow release"},
	} {
		t.Run(name, func(t *testing.T) {
			requireCause(t, review(t, admissionv1.Create, importSource(cdiv1.VolumeImportSourceSpec{Source: c.src}), nil),
				metav1.CauseTypeFieldValueInvalid, c.field, c.msg)
		})
	}
	for _, src := range []*cdiv1.ImportSourceType{httpSource("https://images/disk.img"), {Blank: &cdiv1.DataVolumeBlankImage{}},
		{Registry: &cdiv1.DataVolumeSourceRegistry{URL: ptr.To("docker://registry/disk:latest")}}} {
		require.True(t, review(t, admissionv1.Create, importSource(cdiv1.VolumeImportSourceSpec{Source: src}), nil).Allowed)
	}
}

func TestOtherResourcesAreBadRequests(t *testing.T) {
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Create,
		Resource: metav1.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "datavolumes"}}}
	resp := (&Validator{}).Handle(context.Background(), req)
	require.False(t, resp.Allowed)
	require.EqualValues(t, 400, resp.Result.Code)
	require.Equal(t, "unexpected resource: datavolumes", resp.Result.Message)
}
