package datavolume

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// source replaces the DataVolume's source.
func source(s cdiv1.DataVolumeSource) func(*cdiv1.DataVolume) {
	return func(dv *cdiv1.DataVolume) { dv.Spec.Source = &s }
}

func httpURL(url string) func(*cdiv1.DataVolume) {
	return source(cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: url}})
}

func checksum(sum string) func(*cdiv1.DataVolume) {
	return func(dv *cdiv1.DataVolume) { dv.Spec.Source.HTTP.Checksum = sum }
}

func registry(r cdiv1.DataVolumeSourceRegistry) func(*cdiv1.DataVolume) {
	return source(cdiv1.DataVolumeSource{Registry: &r})
}

func contentType(ct cdiv1.DataVolumeContentType, then func(*cdiv1.DataVolume)) func(*cdiv1.DataVolume) {
	return func(dv *cdiv1.DataVolume) { then(dv); dv.Spec.ContentType = ct }
}

func TestSourceShapeAndContentTypeAreCheckedAsCDIDoes(t *testing.T) {
	runCreates(t, &Validator{}, []dvCase{
		{"source {}", source(cdiv1.DataVolumeSource{}), invalidAt("spec.source", "Missing Data volume source")},
		{"http and blank", source(cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://a/b"}, Blank: &cdiv1.DataVolumeBlankImage{}}),
			invalidAt("spec.source", "Multiple Data volume sources")},
		{"contentType foo", contentType("foo", httpURL("http://a/b")), invalidAt("spec.contentType", "ContentType not one of: kubevirt, archive")},
		{"http archive", contentType(cdiv1.DataVolumeArchive, httpURL("http://a/b")), allowed},
		{"blank archive", contentType(cdiv1.DataVolumeArchive, source(cdiv1.DataVolumeSource{Blank: &cdiv1.DataVolumeBlankImage{}})),
			invalidAt("spec.contentType", "SourceType cannot be blank and the contentType be archive")},
		{"blank", source(cdiv1.DataVolumeSource{Blank: &cdiv1.DataVolumeBlankImage{}}), allowed},
		{"upload", source(cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}}), allowed},
	})
}

func TestURLSourcesAreCheckedAsCDIDoes(t *testing.T) {
	then := func(a, b func(*cdiv1.DataVolume)) func(*cdiv1.DataVolume) {
		return func(dv *cdiv1.DataVolume) { a(dv); b(dv) }
	}
	httpAt, sumAt := "spec.source.HTTP.url", "spec.source.HTTP.checksum"
	runCreates(t, &Validator{}, []dvCase{
		{"http url empty", httpURL(""), invalidAt(httpAt, "spec.source source URL is empty")},
		{"http url relative", httpURL("example.com/disk.img"), invalidAt(httpAt, "spec.source Invalid source URL: example.com/disk.img")},
		{"http url ftp", httpURL("ftp://example.com/disk.img"), invalidAt(httpAt, "spec.source Invalid source URL scheme: ftp://example.com/disk.img")},
		{"http url gs", httpURL("gs://bucket/disk.img"), allowed},
		{"checksum without colon", then(httpURL("http://a/b"), checksum("abc")),
			invalidAt(sumAt, "Invalid checksum format: invalid checksum format: expected 'algorithm:hash', got 'abc'")},
		{"checksum without hash", then(httpURL("http://a/b"), checksum("sha256: ")),
			invalidAt(sumAt, "Invalid checksum format: checksum hash value cannot be empty")},
		{"checksum algorithm", then(httpURL("http://a/b"), checksum("CRC32:abcd")),
			invalidAt(sumAt, "Invalid checksum format: unsupported hash algorithm 'crc32': supported algorithms are: md5, sha1, sha256, sha512")},
		{"checksum length", then(httpURL("http://a/b"), checksum("md5:abcd")),
			invalidAt(sumAt, "Invalid checksum format: invalid md5 hash length: expected 32 hex characters, got 4")},
		{"checksum not hex", then(httpURL("http://a/b"), checksum("md5:"+strings.Repeat("z", 32))),
			invalidAt(sumAt, "Invalid checksum format: checksum hash is not valid hexadecimal: encoding/hex: invalid byte: U+007A 'z'")},
		// CDI admits a valid checksum; the importer here would not verify
		// it, so it is refused rather than ignored, as are extra headers.
		{"checksum valid", then(httpURL("http://a/b"), checksum(" SHA1 : "+strings.Repeat("A0", 20))),
			invalidAt("spec.source.http.checksum", "spec.source.http.checksum is not supported yet by this virtflow release")},
		{"extra headers", then(httpURL("http://a/b"), func(dv *cdiv1.DataVolume) { dv.Spec.Source.HTTP.ExtraHeaders = []string{"X-A: b"} }),
			invalidAt("spec.source.http.extraHeaders", "spec.source.http.extraHeaders is not supported yet by this virtflow release")},
		{"url and checksum both wrong", then(httpURL(""), checksum("abc")), denied(
			fieldInvalid(httpAt, "spec.source source URL is empty"),
			fieldInvalid(sumAt, "Invalid checksum format: invalid checksum format: expected 'algorithm:hash', got 'abc'"))},
		{"s3 url empty", source(cdiv1.DataVolumeSource{S3: &cdiv1.DataVolumeSourceS3{}}),
			invalidAt("spec.source.S3.url", "spec.source source URL is empty")},
		{"s3 scheme", source(cdiv1.DataVolumeSource{S3: &cdiv1.DataVolumeSourceS3{URL: "s3://bucket/x"}}),
			invalidAt("spec.source.S3.url", "spec.source Invalid source URL scheme: s3://bucket/x")},
		{"gcs url relative", source(cdiv1.DataVolumeSource{GCS: &cdiv1.DataVolumeSourceGCS{URL: "bucket/x"}}),
			invalidAt("spec.source.GCS.url", "spec.source Invalid source URL: bucket/x")},
	})
}

func TestRegistrySourcesAreCheckedAsCDIDoes(t *testing.T) {
	node, pod, bad := cdiv1.RegistryPullNode, cdiv1.RegistryPullPod, cdiv1.RegistryPullMethod("foo")
	methodAt := "spec.source.Registry.importMethod"
	runCreates(t, &Validator{}, []dvCase{
		{"archive", contentType(cdiv1.DataVolumeArchive, registry(cdiv1.DataVolumeSourceRegistry{URL: ptr.To("docker://a/b")})),
			invalidAt("spec.contentType", "ContentType must be kubevirt when Source is Registry")},
		{"no url nor image stream", registry(cdiv1.DataVolumeSourceRegistry{}),
			invalidAt("spec.source.Registry", "Source registry should have either URL or ImageStream")},
		{"url and image stream", registry(cdiv1.DataVolumeSourceRegistry{URL: ptr.To("docker://a/b"), ImageStream: ptr.To("is")}),
			invalidAt("spec.source.Registry", "Source registry should have either URL or ImageStream")},
		{"url unparsable", registry(cdiv1.DataVolumeSourceRegistry{URL: ptr.To("docker://a b%zz")}),
			invalidAt("spec.source.Registry.URL", "Illegal registry source URL docker://a b%zz")},
		{"url http", registry(cdiv1.DataVolumeSourceRegistry{URL: ptr.To("http://a/b")}),
			invalidAt("spec.source.Registry.URL", "Illegal registry source URL scheme http://a/b")},
		{"url without scheme", registry(cdiv1.DataVolumeSourceRegistry{URL: ptr.To("quay.io/a/b")}),
			invalidAt("spec.source.Registry.URL", "Illegal registry source URL scheme quay.io/a/b")},
		{"unknown pull method", registry(cdiv1.DataVolumeSourceRegistry{URL: ptr.To("docker://a/b"), PullMethod: &bad}),
			invalidAt(methodAt, `ImportMethod foo is neither pod, node or ""`)},
		{"empty image stream", registry(cdiv1.DataVolumeSourceRegistry{ImageStream: ptr.To("")}),
			invalidAt(methodAt, "Source registry ImageStream is not valid")},
		{"image stream pulled by a pod", registry(cdiv1.DataVolumeSourceRegistry{ImageStream: ptr.To("is"), PullMethod: &pod}),
			invalidAt(methodAt, "Source registry ImageStream is supported only with node pull import method")},
		{"docker url pulled by the node", registry(cdiv1.DataVolumeSourceRegistry{URL: ptr.To("docker://a/b"), PullMethod: &node}), allowed},
		{"oci-archive url, kubevirt content", contentType(cdiv1.DataVolumeKubeVirt, registry(cdiv1.DataVolumeSourceRegistry{URL: ptr.To("oci-archive:///a.tar")})), allowed},
		{"valid image stream is refused here", registry(cdiv1.DataVolumeSourceRegistry{ImageStream: ptr.To("is"), PullMethod: &node}),
			invalidAt("spec.source.Registry", unsupportedImageStream)},
	})
}

func TestMigrationSourcesAreCheckedAsCDIThenRefusedHere(t *testing.T) {
	imageio := func(edit func(*cdiv1.DataVolumeSourceImageIO)) func(*cdiv1.DataVolume) {
		s := cdiv1.DataVolumeSourceImageIO{URL: "https://engine/ovirt-engine/api", DiskID: "d", SecretRef: "s", CertConfigMap: "c"}
		edit(&s)
		return source(cdiv1.DataVolumeSource{Imageio: &s})
	}
	vddk := func(edit func(*cdiv1.DataVolumeSourceVDDK)) func(*cdiv1.DataVolume) {
		s := cdiv1.DataVolumeSourceVDDK{URL: "https://vcenter/sdk", UUID: "u", BackingFile: "[ds] vm.vmdk", Thumbprint: "t", SecretRef: "s"}
		edit(&s)
		return source(cdiv1.DataVolumeSource{VDDK: &s})
	}
	refused := invalidAt("spec.source", unsupportedSource)
	runCreates(t, &Validator{}, []dvCase{
		{"imageio without secret", imageio(func(s *cdiv1.DataVolumeSourceImageIO) { s.SecretRef = "" }),
			invalidAt("spec.source.Imageio", "spec.source.Imageio source Imageio is not valid")},
		{"imageio without disk", imageio(func(s *cdiv1.DataVolumeSourceImageIO) { s.DiskID = "" }),
			invalidAt("spec.source.Imageio", "spec.source.Imageio source Imageio is not valid")},
		{"imageio without trust", imageio(func(s *cdiv1.DataVolumeSourceImageIO) { s.CertConfigMap = "" }),
			invalidAt("spec.source.Imageio", "spec.source.Imageio source Imageio requires CertConfigMap or InsecureSkipVerify")},
		{"imageio url empty", imageio(func(s *cdiv1.DataVolumeSourceImageIO) { s.URL = "" }),
			invalidAt("spec.source.ImageIO.url", "spec.source source URL is empty")},
		{"imageio insecure", imageio(func(s *cdiv1.DataVolumeSourceImageIO) { s.CertConfigMap, s.InsecureSkipVerify = "", ptr.To(true) }), refused},
		{"vddk without thumbprint", vddk(func(s *cdiv1.DataVolumeSourceVDDK) { s.Thumbprint = "" }),
			invalidAt("spec.source.VDDK", "spec.source.VDDK source VDDK is not valid")},
		{"vddk url scheme", vddk(func(s *cdiv1.DataVolumeSourceVDDK) { s.URL = "vpx://a/b" }),
			invalidAt("spec.source.VDDK.url", "spec.source Invalid source URL scheme: vpx://a/b")},
		{"vddk", vddk(func(*cdiv1.DataVolumeSourceVDDK) {}), refused},
		{"s3", source(cdiv1.DataVolumeSource{S3: &cdiv1.DataVolumeSourceS3{URL: "https://s3.example/bucket/x"}}), refused},
		{"gcs", source(cdiv1.DataVolumeSource{GCS: &cdiv1.DataVolumeSourceGCS{URL: "gs://bucket/x"}}), refused},
	})
}

func TestCloneSourcesAreCheckedAsCDIDoes(t *testing.T) {
	snapshot := func(ns, name string) func(*cdiv1.DataVolume) {
		return source(cdiv1.DataVolumeSource{Snapshot: &cdiv1.DataVolumeSourceSnapshot{Namespace: ns, Name: name}})
	}
	runCreates(t, &Validator{}, []dvCase{
		{"pvc without namespace", func(dv *cdiv1.DataVolume) { pvcSource(dv, "", "src") },
			invalidAt("spec.source.PVC", "spec.source.PVC source PVC is not valid")},
		{"pvc without name", func(dv *cdiv1.DataVolume) { pvcSource(dv, "ns", "") },
			invalidAt("spec.source.PVC", "spec.source.PVC source PVC is not valid")},
		{"pvc", func(dv *cdiv1.DataVolume) { pvcSource(dv, "ns", "src") }, allowed},
		{"snapshot without name", snapshot("ns", ""), invalidAt("spec.source.Snapshot", "spec.source.Snapshot source snapshot is not valid")},
		{"snapshot is refused here", snapshot("ns", "snap"), invalidAt("spec.source", unsupportedSource)},
	})
}
