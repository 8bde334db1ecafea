// Package virtapiserver is the virt-api command: the aggregated API
// subresources.kubevirt.io (start, stop, console, vnc, ...; package
// virtapi) and KubeVirt's admission webhooks (package virtadmission), on
// one TLS port behind the virt-api Service.
package virtapiserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"net/http"
	"path/filepath"

	"github.com/virtflow/virtflow/kube/mtls"

	"go.temporal.io/sdk/client"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/kube/frontproxy"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/operators/kubevirt/kubevirt"
	"github.com/virtflow/virtflow/operators/kubevirt/virtadmission"
	"github.com/virtflow/virtflow/operators/kubevirt/virtapi"
	"github.com/virtflow/virtflow/version"
)

// Main runs virt-api until ctx ends.
func Main(ctx context.Context, args []string) error {
	var certDir, agentTLSDir string
	cmd := manager.Command{Name: "virt-api", Flags: func(fs *flag.FlagSet) {
		fs.StringVar(&certDir, "cert-dir", kubevirt.VirtAPICertDir, "directory of the serving tls.crt and tls.key")
		fs.StringVar(&agentTLSDir, "node-agent-tls-dir", kubevirt.HandlerClientCertDir, "tls.crt, tls.key and ca-bundle.crt of virt-api's client certificate towards the node agents")
	}}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, _ client.Client) error {
		agentTLS := mtls.Files{
			Cert: filepath.Join(agentTLSDir, "tls.crt"), Key: filepath.Join(agentTLSDir, "tls.key"),
			CA: filepath.Join(agentTLSDir, "ca-bundle.crt"),
		}
		return manager.ServeTLS(mgr, "virt-api", certDir, handlers(mgr, agentTLS.Client(kubevirt.HandlerServerName)))
	})
}

// handlers serve the webhooks and, for everything else, the aggregated
// API, whose requests are authenticated by the aggregator's client CA.
func handlers(mgr ctrl.Manager, agentTLS *tls.Config) manager.Build {
	return func(ctx context.Context) (http.Handler, *x509.CertPool, error) {
		clientCAs, allowed, err := frontproxy.Trust(ctx, mgr.GetAPIReader())
		if err != nil {
			return nil, nil, err
		}
		if err := watchFeatureGates(ctx, mgr); err != nil {
			return nil, nil, err
		}
		c := mgr.GetClient()
		api := &virtapi.Server{
			Actions: &virtapi.Actions{Client: c}, Version: version.Get(), Reader: mgr.GetAPIReader(),
			Nodes:        &virtapi.NodeAgents{Client: mgr.GetAPIReader(), Namespace: manager.Namespace(), TokenSecret: handler.TokenSecret, TLS: agentTLS},
			Authenticate: frontproxy.Authenticator(allowed),
		}
		mux := http.NewServeMux()
		for path, h := range virtadmission.Webhooks(admission.NewDecoder(mgr.GetScheme()), mgr.GetAPIReader()) {
			mux.Handle(path, h)
		}
		mux.Handle(virtadmission.PodEvictionValidatePath, virtadmission.PodEvictionWebhook(mgr.GetAPIReader(), c))
		mux.Handle("/", api.Handler())
		return mux, clientCAs, nil
	}
}
