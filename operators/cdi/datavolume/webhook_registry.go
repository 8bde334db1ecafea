package datavolume

import (
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
)

// validateRegistry wants a kubevirt image, then either a docker or
// oci-archive URL or an image stream, and a known pull method.
func validateRegistry(f *field.Path, r *cdiv1.DataVolumeSourceRegistry, ct cdiv1.DataVolumeContentType) []metav1.StatusCause {
	if ct != "" && ct != cdiv1.DataVolumeKubeVirt {
		return cdiadmission.Invalid(f.Child("contentType"), fmt.Sprintf("ContentType must be %s when Source is Registry", cdiv1.DataVolumeKubeVirt))
	}
	if (r.URL == nil) == (r.ImageStream == nil) {
		return cdiadmission.Invalid(f.Child("source", "Registry"), "Source registry should have either URL or ImageStream")
	}
	if r.URL != nil {
		u, err := url.Parse(*r.URL)
		if err != nil {
			return cdiadmission.Invalid(f.Child("source", "Registry", "URL"), "Illegal registry source URL "+*r.URL)
		}
		if u.Scheme != cdiv1.RegistrySchemeDocker && u.Scheme != cdiv1.RegistrySchemeOci {
			// CDI prints the parsed URL, which may differ from what was
			// written.
			return cdiadmission.Invalid(f.Child("source", "Registry", "URL"), "Illegal registry source URL scheme "+u.String())
		}
	}
	return validatePullMethod(f.Child("source", "Registry", "importMethod"), r)
}

// validatePullMethod checks the pull method, and that an image stream is
// named and pulled by the node. CDI reports all three at importMethod.
func validatePullMethod(at *field.Path, r *cdiv1.DataVolumeSourceRegistry) []metav1.StatusCause {
	m := r.PullMethod
	if m != nil && *m != cdiv1.RegistryPullPod && *m != cdiv1.RegistryPullNode {
		return cdiadmission.Invalid(at, fmt.Sprintf("ImportMethod %s is neither %s, %s or \"\"", *m, cdiv1.RegistryPullPod, cdiv1.RegistryPullNode))
	}
	if r.ImageStream != nil && *r.ImageStream == "" {
		return cdiadmission.Invalid(at, "Source registry ImageStream is not valid")
	}
	if r.ImageStream != nil && (m == nil || *m != cdiv1.RegistryPullNode) {
		return cdiadmission.Invalid(at, "Source registry ImageStream is supported only with node pull import method")
	}
	return nil
}

// checksumHexLen is the hex length of each digest CDI verifies.
var checksumHexLen = map[string]int{"md5": 32, "sha1": 40, "sha256": 64, "sha512": 128}

// checksumProblem says, in CDI's words, why sum is not "algorithm:hex";
// nil when it is. Algorithm and digest are case-insensitive and may be
// padded with spaces.
func checksumProblem(sum string) error {
	algo, digest, ok := strings.Cut(sum, ":")
	if !ok {
		return fmt.Errorf("invalid checksum format: expected 'algorithm:hash', got '%s'", sum)
	}
	algo = strings.ToLower(strings.TrimSpace(algo))
	digest = strings.ToLower(strings.TrimSpace(digest))
	if digest == "" {
		return fmt.Errorf("checksum hash value cannot be empty")
	}
	want, known := checksumHexLen[algo]
	if !known {
		return fmt.Errorf("unsupported hash algorithm '%s': supported algorithms are: md5, sha1, sha256, sha512", algo)
	}
	if len(digest) != want {
		return fmt.Errorf("invalid %s hash length: expected %d hex characters, got %d", algo, want, len(digest))
	}
	if _, err := hex.DecodeString(digest); err != nil {
		return fmt.Errorf("checksum hash is not valid hexadecimal: %w", err)
	}
	return nil
}
