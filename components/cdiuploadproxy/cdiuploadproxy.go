// Package cdiuploadproxy is cdi-uploadproxy's command: it takes users'
// images with an upload token, verified with the public half of
// cdi-apiserver's signing key, and streams them to the claim's upload
// server on its node.
package cdiuploadproxy

import (
	"context"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"

	"github.com/virtflow/virtflow/components/manager"
	"github.com/virtflow/virtflow/operators/cdi"
	"github.com/virtflow/virtflow/operators/cdiapi"
	"github.com/virtflow/virtflow/operators/uploadproxy"
)

// Main runs cdi-uploadproxy until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cdi-uploadproxy", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig; the pod's service account when empty")
	certDir := fs.String("cert-dir", cdi.CertDir, "directory of the serving tls.crt and tls.key")
	keyDir := fs.String("key-dir", cdi.KeyDir, "directory of the token verification key "+cdiapi.PublicKeyFile)
	if err := fs.Parse(args); err != nil {
		return err
	}
	pub, err := cdiapi.LoadPublicKey(*keyDir)
	if err != nil {
		return err
	}
	mgr, err := manager.New(manager.Options{Kubeconfig: *kubeconfig})
	if err != nil {
		return err
	}
	proxy := &uploadproxy.Proxy{Client: mgr.GetClient(), PublicKey: pub}
	build := func(context.Context) (http.Handler, *x509.CertPool, error) { return proxy.Handler(), nil, nil }
	if err := manager.ServeTLS(mgr, "cdi-uploadproxy", *certDir, build); err != nil {
		return err
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running cdi-uploadproxy: %w", err)
	}
	return nil
}
