package cdicron

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"go.temporal.io/sdk/temporal"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/activities/storage"
	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/registries"
)

// digestNameLength is how many hex digits of the digest's hash name a
// cron DataVolume, as upstream's digestDvNameSuffixLength.
const digestNameLength = 12

// DataVolumeName is the deterministic name of the DataVolume importing one
// digest for a managed DataSource, so a retried or repeated poll adopts
// the DataVolume instead of creating another.
func DataVolumeName(dataSource, digest string) string {
	sum := sha256.Sum256([]byte(digest))
	return dataSource + "-" + hex.EncodeToString(sum[:])[:digestNameLength]
}

// digest resolves the template source's current digest.
func (a *Activities) digest(ctx context.Context, cron *cdiv1.DataImportCron) (string, error) {
	src := cron.Spec.Template.Spec.Source
	switch {
	case src != nil && src.Registry != nil && src.Registry.URL != nil:
		creds, err := storage.ResolveSource(ctx, a.Client, cron.Namespace, cdi.SourceRef{
			URL: *src.Registry.URL, SecretRef: ptr.Deref(src.Registry.SecretRef, ""), CertConfigMap: ptr.Deref(src.Registry.CertConfigMap, ""),
		})
		if err != nil {
			return "", err
		}
		d, err := storage.RegistryDigest(ctx, storage.RegistrySource{
			URL: creds.URL, CACert: creds.CACert, Username: creds.Username, Password: creds.Password,
			Insecure: registries.Insecure(ctx, a.Client, creds.URL),
		})
		if err != nil {
			return "", fmt.Errorf("polling %s: %w", *src.Registry.URL, err)
		}
		return d, nil
	case src != nil && src.HTTP != nil && src.HTTP.URL != "":
		creds, err := storage.ResolveSource(ctx, a.Client, cron.Namespace, cdi.SourceRef{
			URL: src.HTTP.URL, SecretRef: src.HTTP.SecretRef, CertConfigMap: src.HTTP.CertConfigMap,
		})
		if err != nil {
			return "", err
		}
		return httpDigest(ctx, creds)
	}
	return "", temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("DataImportCron %s/%s: the template has no registry or http URL to poll", cron.Namespace, cron.Name),
		cdi.ErrTypeUnsupportedSource, nil)
}

// httpDigest asks an http source for its validator without fetching the
// body: the ETag, else Last-Modified. A server that refuses HEAD gets a
// one-byte ranged GET.
func httpDigest(ctx context.Context, src storage.Source) (string, error) {
	url := src.URL
	hc, err := src.HTTPClient()
	if err != nil {
		return "", err
	}
	resp, err := send(ctx, hc, http.MethodHead, src)
	if err == nil && (resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented) {
		resp, err = send(ctx, hc, http.MethodGet, src)
	}
	if err != nil {
		return "", fmt.Errorf("polling %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPartialContent {
		return "", fmt.Errorf("polling %s: expected status code 200, got %d. Status: %s", url, resp.StatusCode, resp.Status)
	}
	if etag := resp.Header.Get("ETag"); etag != "" {
		return "etag:" + strings.Trim(strings.TrimPrefix(etag, "W/"), `"`), nil
	}
	if lm := resp.Header.Get("Last-Modified"); lm != "" {
		return "last-modified:" + lm, nil
	}
	return "", temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("polling %s: the server sends neither ETag nor Last-Modified, so a new version cannot be told apart", url),
		cdi.ErrTypeUnsupportedSource, nil)
}

// send makes one request and drops its body; only the headers matter.
func send(ctx context.Context, hc *http.Client, method string, src storage.Source) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, src.URL, nil)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("%q is not a valid URL: %v", src.URL, err), cdi.ErrTypeUnsupportedSource, nil)
	}
	if method == http.MethodGet {
		req.Header.Set("Range", "bytes=0-0")
	}
	if src.Username != "" {
		req.SetBasicAuth(src.Username, src.Password)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	return resp, resp.Body.Close()
}

// pinnedRegistryURL makes a registry URL name the polled digest instead of
// a tag, so the import reads exactly the image the poll saw even if the
// tag moves meanwhile.
func pinnedRegistryURL(url, digest string) string {
	if !strings.HasPrefix(digest, "sha256:") {
		return url
	}
	slash := strings.LastIndex(url, "/")
	repo := url[slash+1:]
	if at := strings.Index(repo, "@"); at >= 0 {
		repo = repo[:at]
	} else if colon := strings.Index(repo, ":"); colon >= 0 {
		repo = repo[:colon]
	}
	return url[:slash+1] + repo + "@" + digest
}
