package cdicron

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/activities/storage"
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

// credentials are what a source's secretRef and certConfigMap hold.
type credentials struct {
	username, password string
	caCert             []byte
}

// digest resolves the template source's current digest.
func (a *Activities) digest(ctx context.Context, cron *cdiv1.DataImportCron) (string, error) {
	src := cron.Spec.Template.Spec.Source
	switch {
	case src != nil && src.Registry != nil && src.Registry.URL != nil:
		creds, err := a.credentials(ctx, cron.Namespace, deref(src.Registry.SecretRef), deref(src.Registry.CertConfigMap))
		if err != nil {
			return "", err
		}
		d, err := storage.RegistryDigest(ctx, storage.RegistrySource{
			URL: *src.Registry.URL, CACert: creds.caCert, Username: creds.username, Password: creds.password,
			Insecure: a.insecureRegistry(ctx, *src.Registry.URL),
		})
		if err != nil {
			return "", fmt.Errorf("polling %s: %w", *src.Registry.URL, err)
		}
		return d, nil
	case src != nil && src.HTTP != nil && src.HTTP.URL != "":
		creds, err := a.credentials(ctx, cron.Namespace, src.HTTP.SecretRef, src.HTTP.CertConfigMap)
		if err != nil {
			return "", err
		}
		return httpDigest(ctx, src.HTTP.URL, creds)
	}
	return "", temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("DataImportCron %s/%s: the template has no registry or http URL to poll", cron.Namespace, cron.Name),
		ErrTypeUnsupportedSource, nil)
}

// credentials reads the secret and config map a source names, with CDI's
// keys; the config map's values are concatenated as one PEM bundle.
func (a *Activities) credentials(ctx context.Context, ns, secret, configMap string) (credentials, error) {
	var c credentials
	if secret != "" {
		s := &corev1.Secret{}
		if err := a.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: secret}, s); err != nil {
			return c, fmt.Errorf("reading secret %s/%s named by the source: %w", ns, secret, err)
		}
		c.username, c.password = string(s.Data[storage.SecretKeyAccessKeyID]), string(s.Data[storage.SecretKeySecretKey])
	}
	if configMap != "" {
		cm := &corev1.ConfigMap{}
		if err := a.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: configMap}, cm); err != nil {
			return c, fmt.Errorf("reading config map %s/%s named by the source: %w", ns, configMap, err)
		}
		keys := make([]string, 0, len(cm.Data))
		for k := range cm.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c.caCert = append(c.caCert, []byte(cm.Data[k]+"\n")...)
		}
	}
	return c, nil
}

// insecureRegistry tells whether CDIConfig lists the URL's registry host
// among its insecureRegistries, as the DataVolume controller does.
func (a *Activities) insecureRegistry(ctx context.Context, url string) bool {
	cfg := &cdiv1.CDIConfig{}
	if err := a.Client.Get(ctx, types.NamespacedName{Name: "config"}, cfg); err != nil {
		return false
	}
	host, _, _ := strings.Cut(strings.TrimPrefix(url, "docker://"), "/")
	return slices.Contains(cfg.Spec.InsecureRegistries, host)
}

// httpDigest asks an http source for its validator without fetching the
// body: the ETag, else Last-Modified. A server that refuses HEAD gets a
// one-byte ranged GET.
func httpDigest(ctx context.Context, url string, creds credentials) (string, error) {
	hc, err := httpClient(creds.caCert)
	if err != nil {
		return "", err
	}
	resp, err := send(ctx, hc, http.MethodHead, url, creds)
	if err == nil && (resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented) {
		resp, err = send(ctx, hc, http.MethodGet, url, creds)
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
		ErrTypeUnsupportedSource, nil)
}

// send makes one request and drops its body; only the headers matter.
func send(ctx context.Context, hc *http.Client, method, url string, creds credentials) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("%q is not a valid URL: %v", url, err), ErrTypeUnsupportedSource, nil)
	}
	if method == http.MethodGet {
		req.Header.Set("Range", "bytes=0-0")
	}
	if creds.username != "" {
		req.SetBasicAuth(creds.username, creds.password)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	return resp, resp.Body.Close()
}

func httpClient(caCert []byte) (*http.Client, error) {
	if len(caCert) == 0 {
		return http.DefaultClient, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caCert) {
		return nil, errors.New("the certificate config map holds no PEM certificate")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
