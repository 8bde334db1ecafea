// Package cdiapiserver is cdi-apiserver's command: the aggregated API
// upload.cdi.kubevirt.io, which issues upload tokens signed with the key
// cdi-operator keeps, and the DataVolume validating webhook, on one TLS
// port behind the cdi-api Service.
package cdiapiserver

import (
	"context"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/components/manager"
	"github.com/virtflow/virtflow/operators/cdi"
	"github.com/virtflow/virtflow/operators/cdiapi"
	"github.com/virtflow/virtflow/operators/datavolume"
	"github.com/virtflow/virtflow/operators/virtapi"
)

// Main runs cdi-apiserver until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cdi-apiserver", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig; the pod's service account when empty")
	certDir := fs.String("cert-dir", cdi.CertDir, "directory of the serving tls.crt and tls.key")
	keyDir := fs.String("key-dir", cdi.KeyDir, "directory of the token signing key "+cdiapi.PrivateKeyFile)
	if err := fs.Parse(args); err != nil {
		return err
	}
	key, err := cdiapi.LoadPrivateKey(*keyDir)
	if err != nil {
		return err
	}
	mgr, err := manager.New(manager.Options{Kubeconfig: *kubeconfig})
	if err != nil {
		return err
	}
	if err := manager.ServeTLS(mgr, "cdi-apiserver", *certDir, handlers(mgr, cdiapi.Signer{Key: key})); err != nil {
		return err
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running cdi-apiserver: %w", err)
	}
	return nil
}

// handlers serve the DataVolume webhook and, for everything else, the
// aggregated API, whose requests are authenticated by the aggregator's
// client CA.
func handlers(mgr ctrl.Manager, signer cdiapi.Signer) manager.Build {
	return func(ctx context.Context) (http.Handler, *x509.CertPool, error) {
		clientCAs, allowed, err := virtapi.FrontProxyTrust(ctx, mgr.GetAPIReader())
		if err != nil {
			return nil, nil, err
		}
		dec := admission.NewDecoder(mgr.GetScheme())
		mux := http.NewServeMux()
		mux.Handle(datavolume.ValidatePath, &webhook.Admission{Handler: &datavolume.Validator{
			Decoder: dec, Client: mgr.GetClient(), Reader: mgr.GetAPIReader(),
		}})
		mux.Handle("/", (&cdiapi.Server{Signer: signer, Authenticate: virtapi.ProxyAuthenticator(allowed)}).Handler())
		return mux, clientCAs, nil
	}
}
