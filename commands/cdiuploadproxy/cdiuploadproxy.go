// Package cdiuploadproxy is cdi-uploadproxy's command: it takes users'
// images with an upload token, verified with the public half of
// cdi-apiserver's signing key, and streams them, token and all, to the
// upload server the DataVolume's upload workflow reports (read from
// Temporal, never from the claim).
package cdiuploadproxy

import (
	"context"
	"crypto/x509"
	"flag"
	"net/http"
	"path/filepath"

	"github.com/virtflow/virtflow/kube/mtls"

	"go.temporal.io/sdk/client"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/kube/uploadtoken"
	"github.com/virtflow/virtflow/operators/cdi/cdi"
	"github.com/virtflow/virtflow/operators/cdi/uploadproxy"
)

// Main runs cdi-uploadproxy until ctx ends.
func Main(ctx context.Context, args []string) error {
	var certDir, keyDir, serverTLSDir string
	cmd := manager.Command{Name: "cdi-uploadproxy", Temporal: true, Flags: func(fs *flag.FlagSet) {
		fs.StringVar(&certDir, "cert-dir", cdi.CertDir, "directory of the serving tls.crt and tls.key")
		fs.StringVar(&keyDir, "key-dir", cdi.KeyDir, "directory of the token verification key "+uploadtoken.PublicKeyFile)
		fs.StringVar(&serverTLSDir, "upload-server-tls-dir", uploadtoken.ClientCertDir,
			"tls.crt, tls.key and ca-bundle.crt of the proxy's client certificate towards the nodes' upload servers")
	}}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, tc client.Client) error {
		pub, err := uploadtoken.LoadPublicKey(keyDir)
		if err != nil {
			return err
		}
		files := mtls.Files{Cert: filepath.Join(serverTLSDir, "tls.crt"), Key: filepath.Join(serverTLSDir, "tls.key"), CA: filepath.Join(serverTLSDir, "ca-bundle.crt")}
		proxy := &uploadproxy.Proxy{Client: mgr.GetClient(), Workflows: tc, PublicKey: pub, TLS: files.Client(uploadtoken.ServerName)}
		build := func(context.Context) (http.Handler, *x509.CertPool, error) { return proxy.Handler(), nil, nil }
		return manager.ServeTLS(mgr, "cdi-uploadproxy", certDir, build)
	})
}
