//go:build integration && bench

package integration

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/virtflow/virtflow/embedded/platform"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/operators/cdi/cdiapi"
	"github.com/virtflow/virtflow/operators/cdi/uploadproxy"
)

// Names of cdi-apiserver's Service, APIService and token signing key.
const (
	cdiAPIService     = "cdi-api"
	cdiAPIServiceName = cdiapi.Version + "." + cdiapi.Group
	signingKeySecret  = "cdi-api-signing-key"
)

// signingKey reads cdi-apiserver's token key, creating it on first start,
// so tokens stay valid across restarts and every proxy verifies them.
func signingKey(ctx context.Context, c client.Client) (ed25519.PrivateKey, error) {
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: platform.Namespace, Name: signingKeySecret}}
	var key ed25519.PrivateKey
	_, err := controllerutil.CreateOrUpdate(ctx, c, sec, func() error {
		if sec.Data == nil {
			sec.Data = map[string][]byte{}
		}
		var err error
		key, err = cdiapi.EnsureSigningKey(sec.Data)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", signingKeySecret, err)
	}
	return key, nil
}

// startCDIAPI serves upload.cdi.kubevirt.io/v1beta1 and returns the public
// key its tokens verify with.
func startCDIAPI(ctx context.Context, c client.Client, certDir string) (ed25519.PublicKey, error) {
	key, err := signingKey(ctx, c)
	if err != nil {
		return nil, err
	}
	err = serveAggregated(ctx, c, aggregatedAPI{
		service: cdiAPIService, apiService: cdiAPIServiceName, group: cdiapi.Group, version: cdiapi.Version, certDir: certDir,
		handler: func(auth func(*http.Request) error) http.Handler {
			return (&cdiapi.Server{Signer: cdiapi.Signer{Key: key}, Authenticate: auth}).Handler()
		},
	})
	return key.Public().(ed25519.PublicKey), err
}

// uploadProxyEndpoint is cdi-uploadproxy's listener and certificate,
// prepared before the manager starts so CDIConfig can name them.
type uploadProxyEndpoint struct {
	l       net.Listener
	url, ca string
	certDir string
}

func newUploadProxyEndpoint(certDir, address string) (*uploadProxyEndpoint, error) {
	if address == "" {
		address = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", address)
	if err != nil {
		return nil, fmt.Errorf("listening for cdi-uploadproxy: %w", err)
	}
	hosts := []string{"cdi-uploadproxy." + platform.Namespace + ".svc", "localhost", "127.0.0.1"}
	bundle, _, err := webhookcert.Ensure(certDir, hosts, webhookcert.DefaultPolicy, time.Now())
	if err != nil {
		l.Close()
		return nil, err
	}
	return &uploadProxyEndpoint{l: l, url: "https://" + l.Addr().String(), ca: string(bundle), certDir: certDir}, nil
}

// serve runs cdi-uploadproxy until ctx ends.
func (e *uploadProxyEndpoint) serve(ctx context.Context, c client.Client, wf uploadproxy.Workflows, pub ed25519.PublicKey) error {
	watcher, err := certwatcher.New(filepath.Join(e.certDir, webhookcert.CertFile), filepath.Join(e.certDir, webhookcert.KeyFile))
	if err != nil {
		return fmt.Errorf("loading cdi-uploadproxy certificate: %w", err)
	}
	go func() { _ = watcher.Start(ctx) }()
	proxy := &uploadproxy.Proxy{Client: c, Workflows: wf, PublicKey: pub}
	hs := &http.Server{Handler: proxy.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = hs.Close() }()
	go func() {
		_ = hs.Serve(tls.NewListener(e.l, &tls.Config{GetCertificate: watcher.GetCertificate, MinVersion: tls.VersionTLS12}))
	}()
	return nil
}
