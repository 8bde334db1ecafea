package virtctl

// The transfer half of image-upload: where the upload proxy is, the token
// it wants, and the streamed POST with its progress bar. Kept apart from the
// DataVolume handling so it can be tested against a plain HTTPS server.

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
	"os"
	"path"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	uploadv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/upload/v1beta1"
)

// proxy finds the upload proxy's URL (--uploadproxy-url, else CDIConfig) and
// an HTTP client that trusts it.
func (u *uploader) proxy(ctx context.Context) (string, *http.Client, error) {
	proxyURL, ca := u.flags.proxyURL, ""
	// With an explicit URL the config only contributes its CA, so a user who
	// may not read it (or does not verify TLS) can still upload.
	if proxyURL == "" || !u.flags.insecure {
		cfg, err := u.cdiConfig(ctx)
		if err != nil && proxyURL == "" {
			return "", nil, err
		}
		if err == nil {
			if proxyURL == "" {
				proxyURL = configuredProxyURL(cfg)
			}
			ca = ptr.Deref(cfg.Status.UploadProxyCA, "")
		}
	}
	if proxyURL == "" {
		return "", nil, errors.New("uploadproxy URL not found")
	}
	if !strings.Contains(proxyURL, "://") {
		proxyURL = "https://" + proxyURL
	}
	client, err := uploadHTTPClient(ca, u.flags.insecure)
	return proxyURL, client, err
}

func (u *uploader) cdiConfig(ctx context.Context) (*cdiv1.CDIConfig, error) {
	raw, err := u.client.Get().AbsPath("/apis/cdi.kubevirt.io/v1beta1/cdiconfigs", cdiConfigName).Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("reading CDIConfig %s for the upload proxy URL: %w", cdiConfigName, err)
	}
	cfg := &cdiv1.CDIConfig{}
	if err := json.Unmarshal(raw, cfg); err != nil {
		return nil, fmt.Errorf("decoding CDIConfig %s: %w", cdiConfigName, err)
	}
	return cfg, nil
}

// configuredProxyURL prefers the spec override, as upstream does, in case
// the status has not caught up with it yet.
func configuredProxyURL(cfg *cdiv1.CDIConfig) string {
	if o := ptr.Deref(cfg.Spec.UploadProxyURLOverride, ""); o != "" {
		return o
	}
	return ptr.Deref(cfg.Status.UploadProxyURL, "")
}

// uploadHTTPClient trusts the system roots plus caPEM (the proxy's CA from
// CDIConfig, typically self-signed), or nothing at all with insecure.
func uploadHTTPClient(caPEM string, insecure bool) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	switch {
	case insecure:
		tr.TLSClientConfig.InsecureSkipVerify = true // #nosec G402 -- the user asked for --insecure
	case caPEM != "":
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM([]byte(caPEM)) {
			return nil, errors.New("CDIConfig status.uploadProxyCA holds no PEM certificate")
		}
		tr.TLSClientConfig.RootCAs = pool
	}
	// No overall timeout: a large image legitimately takes long to send.
	return &http.Client{Transport: tr}, nil
}

// token asks CDI's aggregated API for the bearer token the proxy checks.
func (u *uploader) token(ctx context.Context) (string, error) {
	name := u.flags.name
	body, err := json.Marshal(uploadv1.UploadTokenRequest{
		TypeMeta:   metav1.TypeMeta{APIVersion: uploadv1.SchemeGroupVersion.String(), Kind: "UploadTokenRequest"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: u.namespace},
		Spec:       uploadv1.UploadTokenRequestSpec{PvcName: name},
	})
	if err != nil {
		return "", fmt.Errorf("encoding the upload token request: %w", err)
	}
	raw, err := u.client.Post().AbsPath("/apis/upload.cdi.kubevirt.io/v1beta1/namespaces", u.namespace, "uploadtokenrequests").
		Body(body).SetHeader("Content-Type", "application/json").Do(ctx).Raw()
	if err != nil {
		return "", fmt.Errorf("requesting an upload token for PVC %s/%s: %w", u.namespace, name, err)
	}
	resp := &uploadv1.UploadTokenRequest{}
	if err := json.Unmarshal(raw, resp); err != nil {
		return "", fmt.Errorf("decoding the upload token for PVC %s/%s: %w", u.namespace, name, err)
	}
	if resp.Status.Token == "" {
		return "", fmt.Errorf("the upload token request for PVC %s/%s returned no token", u.namespace, name)
	}
	return resp.Status.Token, nil
}

// uploadEndpoint appends the proxy's upload path unless the user's URL
// already names it.
func uploadEndpoint(proxyURL string) (string, error) {
	u, err := url.Parse(proxyURL)
	if err != nil {
		return "", fmt.Errorf("parsing upload proxy URL %q: %w", proxyURL, err)
	}
	if !strings.HasSuffix(u.Path, uploadProxyPath) && !strings.HasSuffix(u.Path, "/v1alpha1/upload") {
		u.Path = path.Join("/", u.Path, uploadProxyPath)
	}
	return u.String(), nil
}

// upload streams the image file to the proxy. The file is never read into
// memory, so images larger than RAM upload fine.
func upload(ctx context.Context, client *http.Client, proxyURL, token, imagePath string, progress io.Writer) error {
	target, err := uploadEndpoint(proxyURL)
	if err != nil {
		return err
	}
	f, err := os.Open(imagePath)
	if err != nil {
		return fmt.Errorf("opening the image: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading the image size: %w", err)
	}
	bar := newProgressReader(f, st.Size(), progress)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bar)
	if err != nil {
		return fmt.Errorf("building the upload request: %w", err)
	}
	req.ContentLength = st.Size()
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := client.Do(req)
	bar.finish()
	if err != nil {
		return fmt.Errorf("uploading the image: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return fmt.Errorf("unexpected return value %d, %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}

// progressRedraw caps redraws at about five a second: enough to look live,
// few enough not to flood a slow terminal or a log file.
const progressRedraw = 200 * time.Millisecond

// progressReader draws an upload progress bar as the HTTP client reads the
// body. The transport may still read from its own goroutine after Do
// returns, hence the mutex.
type progressReader struct {
	r     io.Reader
	w     io.Writer
	total int64
	now   func() time.Time

	mu          sync.Mutex
	done        int64
	start, last time.Time
	finished    bool
}

func newProgressReader(r io.Reader, total int64, w io.Writer) *progressReader {
	return &progressReader{r: r, w: w, total: total, now: time.Now}
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	if p.start.IsZero() {
		// The clock starts with the first byte, after connecting, for a fair rate.
		p.start = t
	}
	p.done += int64(n)
	if !p.finished && (p.done == p.total || t.Sub(p.last) >= progressRedraw) {
		p.last = t
		p.draw(t)
	}
	return n, err
}

// finish draws the final state and ends the bar's line, whether or not the
// upload got through.
func (p *progressReader) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	p.draw(p.now())
	fmt.Fprintln(p.w)
}

func (p *progressReader) draw(t time.Time) {
	const width = 30
	pct := int64(100)
	if p.total > 0 {
		pct = min(p.done*100/p.total, 100)
	}
	filled := int(pct * width / 100)
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
	var rate int64
	if el := t.Sub(p.start).Seconds(); el > 0 {
		rate = int64(float64(p.done) / el)
	}
	fmt.Fprintf(p.w, "\r%10s / %-10s [%s] %3d%% %10s/s", formatBytes(p.done), formatBytes(p.total), bar, pct, formatBytes(rate))
}

// formatBytes renders n in binary units, as upstream's progress bar does.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
