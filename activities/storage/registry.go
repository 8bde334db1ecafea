package storage

import (
	"archive/tar"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// RegistrySource is a registry image holding a disk under /disk/, as CDI's
// "registry" DataVolume source (a containerDisk).
type RegistrySource struct {
	// URL is docker://host[:port]/repo[:tag|@digest].
	URL string
	// CACert is a PEM bundle trusted for TLS, as CDI's certConfigMap.
	CACert []byte
	// Username and Password are sent as basic auth when Username is set,
	// as CDI's secretRef.
	Username, Password string
	// Insecure allows plain http and skips TLS verification, as CDI's
	// insecureRegistries.
	Insecure bool
}

// dockerScheme is the only scheme CDI accepts for registry sources.
const dockerScheme = "docker://"

func (s RegistrySource) reference() (name.Reference, error) {
	rest, ok := strings.CutPrefix(s.URL, dockerScheme)
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a docker:// URL", ErrInvalidSource, s.URL)
	}
	var opts []name.Option
	if s.Insecure {
		opts = append(opts, name.Insecure)
	}
	ref, err := name.ParseReference(rest, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrInvalidSource, s.URL, err)
	}
	return ref, nil
}

func (s RegistrySource) options(ctx context.Context) ([]remote.Option, error) {
	opts := []remote.Option{remote.WithContext(ctx)}
	if s.Username != "" {
		opts = append(opts, remote.WithAuth(&authn.Basic{Username: s.Username, Password: s.Password}))
	}
	if len(s.CACert) == 0 && !s.Insecure {
		return opts, nil
	}
	// Insecure skips verification because the owner listed the registry
	// as insecure, as CDI does.
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: s.Insecure}
	if len(s.CACert) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(s.CACert) {
			return nil, fmt.Errorf("%w: the certificate config map holds no PEM certificate", ErrSourceUnreachable)
		}
		cfg.RootCAs = pool
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	return append(opts, remote.WithTransport(tr)), nil
}

// pullError says why an image cannot be pulled, in CDI's words; every
// registry failure (missing tag, refused credentials, no answer) marks
// the source unreachable.
func (s RegistrySource) pullError(err error) error {
	if errors.Is(err, ErrInvalidSource) || errors.Is(err, ErrSourceUnreachable) {
		return err
	}
	return fmt.Errorf("%w: unable to pull image %s: %w", ErrSourceUnreachable, s.URL, err)
}

// RegistryDigest resolves the image's manifest digest (sha256:...) without
// pulling layers, so a source can be polled for a new image cheaply.
func RegistryDigest(ctx context.Context, src RegistrySource) (string, error) {
	ref, err := src.reference()
	if err != nil {
		return "", err
	}
	opts, err := src.options(ctx)
	if err != nil {
		return "", err
	}
	if d, err := remote.Head(ref, opts...); err == nil {
		return d.Digest.String(), nil
	}
	// A HEAD answer has no body to say why, and some registries refuse
	// HEAD altogether: GET either works or names the reason.
	d, err := remote.Get(ref, opts...)
	if err != nil {
		return "", src.pullError(err)
	}
	return d.Digest.String(), nil
}

// FetchRegistryDisk pulls only what is needed to find the disk file: it
// walks the layers from the top one down, streaming each, and extracts
// the first regular file under disk/ into dir, sparsely. It returns the
// file's path and the digest RegistryDigest reports for the same image.
func FetchRegistryDisk(ctx context.Context, src RegistrySource, dir string) (path, digest string, err error) {
	ref, err := src.reference()
	if err != nil {
		return "", "", err
	}
	opts, err := src.options(ctx)
	if err != nil {
		return "", "", err
	}
	desc, err := remote.Get(ref, opts...)
	if err != nil {
		return "", "", src.pullError(err)
	}
	// Image resolves an index to the platform's image, but the digest
	// stays the top manifest's so it matches RegistryDigest.
	img, err := desc.Image()
	if err != nil {
		return "", "", src.pullError(err)
	}
	layers, err := img.Layers()
	if err != nil {
		return "", "", src.pullError(err)
	}
	for i := len(layers) - 1; i >= 0; i-- {
		p, err := src.extractDisk(layers[i], dir)
		if err != nil {
			return "", "", err
		}
		if p != "" {
			return p, desc.Digest.String(), nil
		}
	}
	return "", "", fmt.Errorf("%w: image %s has no disk under /disk/", ErrUnsupportedImage, src.URL)
}

// extractDisk writes the layer's first regular file under disk/ into dir
// and returns its path, or "" when the layer holds none. Failing to read
// the layer is the registry's fault; failing to write is the node's.
func (s RegistrySource) extractDisk(layer v1.Layer, dir string) (string, error) {
	rc, err := layer.Uncompressed()
	if err != nil {
		return "", s.pullError(fmt.Errorf("reading layer: %w", err))
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", s.pullError(fmt.Errorf("reading layer: %w", err))
		}
		if !isDiskFile(hdr) {
			continue
		}
		dst := filepath.Join(dir, path.Base(hdr.Name))
		n, err := writeStream(dst, &layerReader{r: tr, src: s}, 0)
		if err == nil && n != hdr.Size {
			err = fmt.Errorf("extracting disk to %s: the layer ended after %d of %d bytes", dst, n, hdr.Size)
		}
		if err != nil {
			_ = os.Remove(dst)
			return "", err
		}
		return dst, nil
	}
}

// layerReader marks errors reading a layer as the registry's.
type layerReader struct {
	r   io.Reader
	src RegistrySource
}

func (l *layerReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = l.src.pullError(fmt.Errorf("reading layer: %w", err))
	}
	return n, err
}

// isDiskFile tells a containerDisk's disk ("disk/x.img", "./disk/x.img")
// from the rest of a layer; whiteouts are markers, not disks.
func isDiskFile(hdr *tar.Header) bool {
	// tar.Reader already reports old tars' TypeRegA as TypeReg.
	if hdr.Typeflag != tar.TypeReg {
		return false
	}
	clean := strings.TrimPrefix(path.Clean("/"+hdr.Name), "/")
	return strings.HasPrefix(clean, "disk/") && !strings.HasPrefix(path.Base(clean), ".wh.")
}
