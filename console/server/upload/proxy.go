package upload

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/console/server/kubeapi"
)

// DefaultProxyURL is cdi-uploadproxy's Service where the platform
// deploys CDI.
const DefaultProxyURL = "https://cdi-uploadproxy.kubevirt-hyperconverged.svc:443"

// uploadPath is where cdi-uploadproxy takes a raw image.
const uploadPath = "/v1beta1/upload"

// cdiConfig is the CDIConfig whose status publishes the proxy's CA.
const cdiConfig = "/apis/cdi.kubevirt.io/v1beta1/cdiconfigs/config"

// Proxy is where cdi-uploadproxy is and how to trust it.
type Proxy struct {
	// URL is the proxy's base URL (DefaultProxyURL if empty).
	URL string
	// CA is the PEM bundle the proxy's certificate chains to. When empty
	// it is CDIConfig's status.uploadProxyCA, read as the user (what
	// virtctl image-upload trusts), else the system's roots.
	CA []byte
	// InsecureSkipVerify trusts any certificate the proxy shows: the
	// image and its upload token then go to whoever answers at URL.
	InsecureSkipVerify bool
}

// client is an HTTP client trusting the proxy. It has no timeout: a
// large image legitimately takes long, and the browser's going away
// ends the request.
func (p Proxy) client(ctx context.Context, user func() (rest.Interface, error)) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	if p.InsecureSkipVerify {
		tr.TLSClientConfig.InsecureSkipVerify = true // #nosec G402 -- the operator asked for it by flag
		return &http.Client{Transport: tr}, nil
	}
	ca := p.CA
	if len(ca) == 0 {
		ca = publishedCA(ctx, user)
	}
	if len(ca) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(ca) {
			return nil, errors.New("the upload proxy's CA bundle holds no PEM certificate")
		}
		tr.TLSClientConfig.RootCAs = pool
	}
	return &http.Client{Transport: tr}, nil
}

// publishedCA is CDIConfig's status.uploadProxyCA, nil when the user may
// not read it or it is not there: the system's roots may still do.
func publishedCA(ctx context.Context, user func() (rest.Interface, error)) []byte {
	c, err := user()
	if err != nil {
		return nil
	}
	raw, err := kubeapi.Body(c.Get().AbsPath(cdiConfig).Do(ctx))
	if err != nil {
		return nil
	}
	cfg := &cdiv1.CDIConfig{}
	if json.Unmarshal(raw, cfg) != nil {
		return nil
	}
	return []byte(ptr.Deref(cfg.Status.UploadProxyCA, ""))
}

// send streams body, of the given length, to the proxy with the upload
// token.
func (p Proxy) send(ctx context.Context, client *http.Client, token string, body io.Reader, length int64) error {
	target, err := p.endpoint()
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, body)
	if err != nil {
		return fmt.Errorf("building the upload request: %w", err)
	}
	req.ContentLength = length
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("sending the image to cdi-uploadproxy: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return nil
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return &refusal{code: resp.StatusCode, message: strings.TrimSpace(string(msg))}
}

// endpoint is the proxy's upload URL.
func (p Proxy) endpoint() (string, error) {
	base := p.URL
	if base == "" {
		base = DefaultProxyURL
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("parsing the upload proxy URL %q: %w", base, err)
	}
	if !strings.HasSuffix(u.Path, uploadPath) {
		u.Path = path.Join("/", u.Path, uploadPath)
	}
	return u.String(), nil
}

// refusal is the proxy's answer when it did not take the image.
type refusal struct {
	code    int
	message string
}

func (r *refusal) Error() string {
	return fmt.Sprintf("cdi-uploadproxy answered %d: %s", r.code, r.message)
}
