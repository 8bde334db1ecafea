// Package hcowebhook is hco-webhook's command: it validates HyperConverged
// objects and guards the install namespace against deletion, on one TLS
// port behind its Service, with the certificate hco-operator keeps.
package hcowebhook

import (
	"context"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/components/manager"
	"github.com/virtflow/virtflow/operators/hco"
)

// Main runs hco-webhook until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("hco-webhook", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig; the pod's service account when empty")
	certDir := fs.String("cert-dir", hco.WebhookCertDir, "directory of the serving tls.crt and tls.key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mgr, err := manager.New(manager.Options{Kubeconfig: *kubeconfig})
	if err != nil {
		return err
	}
	ns := manager.Namespace()
	build := func(context.Context) (http.Handler, *x509.CertPool, error) {
		mux := http.NewServeMux()
		mux.Handle(hco.ValidatePath, &webhook.Admission{Handler: &hco.Validator{
			Reader: mgr.GetAPIReader(), Namespace: ns, Decoder: admission.NewDecoder(mgr.GetScheme()),
		}})
		mux.Handle(hco.ValidateNamespacePath, &webhook.Admission{Handler: &hco.NamespaceValidator{Reader: mgr.GetAPIReader(), Namespace: ns}})
		return mux, nil, nil
	}
	if err := manager.ServeTLS(mgr, "hco-webhook", *certDir, build); err != nil {
		return err
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running hco-webhook: %w", err)
	}
	return nil
}
