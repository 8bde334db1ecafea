// Package kubevirtipamcontroller is kubevirt-ipam-controller's command (the
// kubevirt-ipam-controller-manager pod): the VM and VMI reconcilers that
// keep the IPAMClaims of networks allowing persistent IPs, and the
// launcher pods' webhook naming them.
package kubevirtipamcontroller

import (
	"context"
	"crypto/x509"
	"flag"
	"net/http"

	"go.temporal.io/sdk/client"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/operators/networkaddons/ipamcontroller"
)

type settings struct {
	certDir, defaultNetNADNamespace string
}

// flags are upstream's names for what virtflow's pod sets.
func (s *settings) flags(fs *flag.FlagSet) {
	fs.StringVar(&s.certDir, "certificates-dir", ipamcontroller.CertDir, "directory of the webhook's serving tls.crt and tls.key")
	fs.StringVar(&s.defaultNetNADNamespace, "default-network-nad-namespace", ipamcontroller.DefaultNetworkNADNamespace,
		"namespace of the NetworkAttachmentDefinition that overrides the default network")
}

// Main runs kubevirt-ipam-controller until ctx ends. It elects no leader:
// its webhook must answer on every replica, and its reconciles are
// idempotent (a claim another replica made is found owned by the same VM).
func Main(ctx context.Context, args []string) error {
	var s settings
	cmd := manager.Command{Name: "kubevirt-ipam-controller", Flags: s.flags}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, _ client.Client) error {
		return s.setup(mgr)
	})
}

func (s settings) setup(mgr ctrl.Manager) error {
	if err := (&ipamcontroller.VMReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := (&ipamcontroller.VMIReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return err
	}
	mutator := &ipamcontroller.PodMutator{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), DefaultNetNADNamespace: s.defaultNetNADNamespace}
	build := func(context.Context) (http.Handler, *x509.CertPool, error) {
		mux := http.NewServeMux()
		mux.Handle(ipamcontroller.MutatePath, &webhook.Admission{Handler: mutator})
		return mux, nil, nil
	}
	return manager.ServeTLS(mgr, "kubevirt-ipam-controller", s.certDir, build)
}
