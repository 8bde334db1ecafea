// Package templatevalidator is virt-template-validator's command: SSP's
// validating webhooks for VirtualMachines (their template's validation
// rules) and for deleting templates, on one TLS port behind the
// virt-template-validator Service.
package templatevalidator

import (
	"context"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"

	templatev1 "github.com/openshift/api/template/v1"
	"go.temporal.io/sdk/client"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/operators/ssp/ssp"
	"github.com/virtflow/virtflow/operators/ssp/templatevalidator"
)

// Main runs virt-template-validator until ctx ends.
func Main(ctx context.Context, args []string) error {
	var certDir string
	cmd := manager.Command{Name: ssp.Validator, Flags: func(fs *flag.FlagSet) {
		fs.StringVar(&certDir, "cert-dir", ssp.CertDir, "directory of the serving tls.crt and tls.key")
	}}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, _ client.Client) error {
		// Informers start on first use: started here, the cache's sync
		// (and readiness) waits for them, not the first admission call.
		for _, obj := range []crclient.Object{&templatev1.Template{}, &kubevirtv1.VirtualMachine{}} {
			if _, err := mgr.GetCache().GetInformer(ctx, obj); err != nil {
				return fmt.Errorf("watching %T: %w", obj, err)
			}
		}
		build := func(context.Context) (http.Handler, *x509.CertPool, error) {
			return Handlers(mgr), nil, nil
		}
		return manager.ServeTLS(mgr, ssp.Validator, certDir, build)
	})
}

// Handlers are the validator's webhooks, reading VMs and templates from
// the manager's cache.
func Handlers(mgr ctrl.Manager) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(templatevalidator.VMValidatePath, &webhook.Admission{Handler: &templatevalidator.VMValidator{Reader: mgr.GetClient()}})
	mux.Handle(templatevalidator.TemplateValidatePath, &webhook.Admission{Handler: &templatevalidator.TemplateDeletion{Reader: mgr.GetClient()}})
	return mux
}
