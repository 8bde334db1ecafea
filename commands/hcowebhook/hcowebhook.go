// Package hcowebhook is hco-webhook's command: it validates and defaults
// HyperConverged objects and guards the install namespace against
// deletion, on one TLS port behind its Service, with the certificate
// hco-operator keeps.
package hcowebhook

import (
	"context"
	"crypto/x509"
	"flag"
	"net/http"

	"go.temporal.io/sdk/client"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/operators/hco/hyperconverged"
)

// Main runs hco-webhook until ctx ends.
func Main(ctx context.Context, args []string) error {
	var certDir string
	cmd := manager.Command{Name: "hco-webhook", Flags: func(fs *flag.FlagSet) {
		fs.StringVar(&certDir, "cert-dir", hyperconverged.WebhookCertDir, "directory of the serving tls.crt and tls.key")
	}}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, _ client.Client) error {
		ns := manager.Namespace()
		// Uncached, so a dry run starts from the components as they are.
		direct, err := manager.Direct(mgr)
		if err != nil {
			return err
		}
		build := func(context.Context) (http.Handler, *x509.CertPool, error) {
			mux := http.NewServeMux()
			for path, h := range hyperconverged.Webhooks(direct, mgr.GetAPIReader(), admission.NewDecoder(mgr.GetScheme()), ns) {
				mux.Handle(path, h)
			}
			return mux, nil, nil
		}
		return manager.ServeTLS(mgr, "hco-webhook", certDir, build)
	})
}
