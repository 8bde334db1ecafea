// Package cdiapiserver is cdi-apiserver's command: the aggregated API
// upload.cdi.kubevirt.io, which issues upload tokens signed with the key
// cdi-operator keeps, and the DataVolume and DataImportCron validating
// webhooks, on one TLS port behind the cdi-api Service.
package cdiapiserver

import (
	"context"
	"crypto/x509"
	"flag"
	"net/http"

	"go.temporal.io/sdk/client"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/kube/frontproxy"
	"github.com/virtflow/virtflow/operators/cdi/cdi"
	"github.com/virtflow/virtflow/operators/cdi/cdiapi"
	"github.com/virtflow/virtflow/operators/cdi/dataimportcron"
	"github.com/virtflow/virtflow/operators/cdi/datavolume"
	"github.com/virtflow/virtflow/operators/cdi/volumepopulator"
)

// Main runs cdi-apiserver until ctx ends.
func Main(ctx context.Context, args []string) error {
	var certDir, keyDir string
	cmd := manager.Command{Name: "cdi-apiserver", Flags: func(fs *flag.FlagSet) {
		fs.StringVar(&certDir, "cert-dir", cdi.CertDir, "directory of the serving tls.crt and tls.key")
		fs.StringVar(&keyDir, "key-dir", cdi.KeyDir, "directory of the token signing key "+cdiapi.PrivateKeyFile)
	}}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, _ client.Client) error {
		key, err := cdiapi.LoadPrivateKey(keyDir)
		if err != nil {
			return err
		}
		return manager.ServeTLS(mgr, "cdi-apiserver", certDir, handlers(mgr, cdiapi.Signer{Key: key}))
	})
}

// handlers serve the DataVolume and DataImportCron webhooks and, for
// everything else, the aggregated API, whose requests are authenticated by
// the aggregator's client CA.
func handlers(mgr ctrl.Manager, signer cdiapi.Signer) manager.Build {
	return func(ctx context.Context) (http.Handler, *x509.CertPool, error) {
		clientCAs, allowed, err := frontproxy.Trust(ctx, mgr.GetAPIReader())
		if err != nil {
			return nil, nil, err
		}
		mux := http.NewServeMux()
		mux.Handle(datavolume.ValidatePath, &webhook.Admission{Handler: &datavolume.Validator{
			Client: mgr.GetClient(), Reader: mgr.GetAPIReader(),
		}})
		mux.Handle(dataimportcron.ValidatePath, &webhook.Admission{Handler: &dataimportcron.Validator{}})
		mux.Handle(volumepopulator.ValidatePath, &webhook.Admission{Handler: &volumepopulator.Validator{}})
		mux.Handle(cdi.UninstallValidatePath, &webhook.Admission{Handler: &cdi.UninstallValidator{Reader: mgr.GetAPIReader()}})
		mux.Handle("/", (&cdiapi.Server{Signer: signer, Authenticate: frontproxy.Authenticator(allowed)}).Handler())
		return mux, clientCAs, nil
	}
}
