package storage

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Source is an http(s) image and what it takes to read it.
type Source struct {
	// URL is the image's address.
	URL string
	// CACert is a PEM bundle trusted for https in addition to nothing else,
	// as CDI's certConfigMap.
	CACert []byte
	// Username and Password are sent as basic auth when Username is set, as
	// CDI's secretRef (accessKeyId, secretKey).
	Username, Password string
}

// HTTPClient trusts the source's CA when it names one.
func (s Source) HTTPClient() (*http.Client, error) {
	if len(s.CACert) == 0 {
		return http.DefaultClient, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.CACert) {
		return nil, errors.New("the certificate config map holds no PEM certificate")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}

// probe reads the source's first bytes: it says why a source cannot be
// read before nbdkit hides the HTTP status behind an NBD error (with
// upstream CDI's message), and which compression the content has.
func probe(ctx context.Context, src Source) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.URL, nil)
	if err != nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		return "", fmt.Errorf("%w: %q is not an http or https URL", ErrInvalidSource, src.URL)
	}
	req.Header.Set("Range", "bytes=0-15")
	if src.Username != "" {
		req.SetBasicAuth(src.Username, src.Password)
	}
	hc, err := src.HTTPClient()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrSourceUnreachable, err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: unable to connect to http data source: %w", ErrSourceUnreachable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPartialContent {
		return "", &httpStatusError{code: resp.StatusCode, status: resp.Status}
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(resp.Body, head)
	return compressionOf(head[:n]), nil
}

// ErrSourceUnreachable marks a source that answered with an error or not
// at all.
var ErrSourceUnreachable = errors.New("source unreachable")

// ErrInvalidSource marks a source that is not an http(s) URL.
var ErrInvalidSource = errors.New("invalid source")

// httpStatusError is a source's refusal, in CDI's words.
type httpStatusError struct {
	code   int
	status string
}

func (e *httpStatusError) Error() string {
	return fmt.Sprintf("unable to connect to http data source: expected status code 200, got %d. Status: %s", e.code, e.status)
}

func (e *httpStatusError) Unwrap() error { return ErrSourceUnreachable }

// compressionOf tells gzip and xz apart from everything else by magic.
func compressionOf(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gz"
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		return "xz"
	}
	return ""
}

// HTTPExport serves an image (over HTTP(S), or a local file) as a
// read-only NBD export on a unix socket, so qemu-img reads it (and
// qcow2's random access) without a scratch copy, decompressing on the fly.
type HTTPExport struct {
	cmd     *exec.Cmd
	done    chan error
	dir     string
	ownsDir bool
	sock    string
}

// ServeHTTP starts nbdkit's curl plugin for src, decompressing on the fly
// when compression is "gz" or "xz". Its socket, credentials and the gzip
// filter's temporary file live in dir, or in a new temporary directory
// when dir is empty; keep dir short: unix socket paths are limited to 108
// bytes.
func ServeHTTP(ctx context.Context, src Source, compression, dir string) (*HTTPExport, error) {
	return serve(ctx, compression, dir, func(e *HTTPExport) ([]string, error) { return e.curlArgs(src) })
}

// ServeFile serves a local image file the same way, for sources that
// arrive as files (a registry image's disk, an upload).
func ServeFile(ctx context.Context, path, compression, dir string) (*HTTPExport, error) {
	return serve(ctx, compression, dir, func(*HTTPExport) ([]string, error) { return []string{"file", "file=" + path}, nil })
}

func serve(ctx context.Context, compression, dir string, plugin func(*HTTPExport) ([]string, error)) (*HTTPExport, error) {
	e := &HTTPExport{done: make(chan error, 1), dir: dir}
	if dir == "" {
		d, err := os.MkdirTemp("", "nbd-")
		if err != nil {
			return nil, fmt.Errorf("creating socket directory: %w", err)
		}
		e.dir, e.ownsDir = d, true
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating socket directory: %w", err)
	}
	e.sock = filepath.Join(e.dir, "nbd.sock")
	_ = os.Remove(e.sock)
	args := []string{"--foreground", "--exit-with-parent", "--readonly", "-U", e.sock}
	switch compression {
	case "gz":
		args = append(args, "--filter=gzip")
	case "xz":
		args = append(args, "--filter=xz")
	}
	pargs, err := plugin(e)
	if err != nil {
		e.Close()
		return nil, err
	}
	var stderr bytes.Buffer
	e.cmd = exec.Command("nbdkit", append(args, pargs...)...)
	e.cmd.Stderr = &stderr
	e.cmd.Env = append(os.Environ(), "TMPDIR="+e.dir)
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := e.cmd.Start(); err != nil {
		e.Close()
		return nil, fmt.Errorf("starting nbdkit: %w", err)
	}
	go func() { e.done <- e.cmd.Wait() }()
	if err := e.waitReady(ctx, &stderr); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// curlArgs are the curl plugin's arguments, with credentials in files
// rather than on the command line.
func (e *HTTPExport) curlArgs(src Source) ([]string, error) {
	args := []string{"curl", "url=" + src.URL}
	if len(src.CACert) > 0 {
		ca := filepath.Join(e.dir, "ca.pem")
		if err := os.WriteFile(ca, src.CACert, 0o600); err != nil {
			return nil, fmt.Errorf("writing source CA: %w", err)
		}
		args = append(args, "cainfo="+ca)
	}
	if src.Username != "" {
		pw := filepath.Join(e.dir, "password")
		if err := os.WriteFile(pw, []byte(src.Password), 0o600); err != nil {
			return nil, fmt.Errorf("writing source password: %w", err)
		}
		args = append(args, "user="+src.Username, "password=+"+pw)
	}
	return args, nil
}

func (e *HTTPExport) waitReady(ctx context.Context, stderr *bytes.Buffer) error {
	deadline := time.After(30 * time.Second)
	for {
		if c, err := net.Dial("unix", e.sock); err == nil {
			c.Close()
			return nil
		}
		select {
		case err := <-e.done:
			e.done <- err
			return fmt.Errorf("nbdkit could not serve the source: %s", strings.TrimSpace(stderr.String()))
		case <-deadline:
			return errors.New("nbdkit did not listen within 30s")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// URI is the export's NBD URI for qemu-img.
func (e *HTTPExport) URI() string { return "nbd+unix:///?socket=" + e.sock }

// Socket is the export's unix socket.
func (e *HTTPExport) Socket() string { return e.sock }

// Close stops nbdkit and removes what it left in its directory.
func (e *HTTPExport) Close() {
	if e.cmd != nil && e.cmd.Process != nil {
		_ = e.cmd.Process.Kill()
		<-e.done
	}
	if e.ownsDir {
		_ = os.RemoveAll(e.dir)
		return
	}
	for _, f := range []string{"nbd.sock", "ca.pem", "password"} {
		_ = os.Remove(filepath.Join(e.dir, f))
	}
}
