//go:build integration && bench

package integration

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/kube/frontproxy"
	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/operators/kubevirt/virtapi"
	"github.com/virtflow/virtflow/version"
)

// virt-api's Service; the aggregator verifies its certificate for this name.
const (
	virtAPIService = "virt-api"
	apiServiceName = "v1.subresources.kubevirt.io"
)

// aggregatedAPI is an API group served in-process behind the aggregation
// layer, through an ExternalName Service pointing at localhost, which
// needs no kube-proxy and no endpoint IPs.
type aggregatedAPI struct {
	service, apiService, group, version string
	certDir                             string
	// handler builds the server's handler around the check that a
	// request came through the aggregator.
	handler func(authenticate func(*http.Request) error) http.Handler
}

// startVirtAPI serves subresources.kubevirt.io/v1.
func startVirtAPI(ctx context.Context, c client.Client, certDir string) error {
	return serveAggregated(ctx, c, aggregatedAPI{
		service: virtAPIService, apiService: apiServiceName, group: virtapi.SubresourceGroup, version: virtapi.SubresourceVersion,
		certDir: certDir,
		handler: func(auth func(*http.Request) error) http.Handler {
			srv := &virtapi.Server{
				Actions: &virtapi.Actions{Client: c}, Version: version.Get(), Reader: c,
				Nodes:        &virtapi.NodeAgents{Client: c, Namespace: platform.Namespace, TokenSecret: handler.TokenSecret},
				Authenticate: auth,
			}
			return srv.Handler()
		},
	})
}

// serveAggregated serves api over TLS on 127.0.0.1 and registers it.
func serveAggregated(ctx context.Context, c client.Client, api aggregatedAPI) error {
	host := api.service + "." + platform.Namespace + ".svc"
	bundle, _, err := webhookcert.Ensure(api.certDir, []string{host, "localhost", "127.0.0.1"}, webhookcert.DefaultPolicy, time.Now())
	if err != nil {
		return err
	}
	watcher, err := certwatcher.New(filepath.Join(api.certDir, webhookcert.CertFile), filepath.Join(api.certDir, webhookcert.KeyFile))
	if err != nil {
		return fmt.Errorf("loading %s certificate: %w", api.service, err)
	}
	go func() { _ = watcher.Start(ctx) }()
	clientCAs, allowed, err := frontproxy.Trust(ctx, c)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening for %s: %w", api.service, err)
	}
	tlsCfg := &tls.Config{GetCertificate: watcher.GetCertificate, ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: clientCAs, MinVersion: tls.VersionTLS12}
	hs := &http.Server{Handler: api.handler(frontproxy.Authenticator(allowed)), ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = hs.Close() }()
	go func() { _ = hs.Serve(tls.NewListener(l, tlsCfg)) }()
	return registerAPIService(ctx, c, api, l.Addr().(*net.TCPAddr).Port, bundle)
}

func registerAPIService(ctx context.Context, c client.Client, api aggregatedAPI, port int, bundle []byte) error {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: platform.Namespace, Name: api.service}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, svc, func() error {
		svc.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost"}
		return nil
	}); err != nil {
		return fmt.Errorf("writing Service %s: %w", api.service, err)
	}
	apiSvc := &unstructured.Unstructured{}
	apiSvc.SetAPIVersion("apiregistration.k8s.io/v1")
	apiSvc.SetKind("APIService")
	apiSvc.SetName(api.apiService)
	apiSvc.Object["spec"] = map[string]any{
		"group": api.group, "version": api.version,
		"groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
		"caBundle": bundle,
		"service":  map[string]any{"namespace": platform.Namespace, "name": api.service, "port": int64(port)},
	}
	if err := c.Patch(ctx, apiSvc, client.Apply, client.FieldOwner(api.service), client.ForceOwnership); err != nil {
		return fmt.Errorf("registering APIService %s: %w", api.apiService, err)
	}
	return waitAPIServiceAvailable(ctx, c, api.apiService, port)
}

func waitAPIServiceAvailable(ctx context.Context, c client.Client, apiServiceName string, port int) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion("apiregistration.k8s.io/v1")
		obj.SetKind("APIService")
		if err := c.Get(ctx, types.NamespacedName{Name: apiServiceName}, obj); err == nil {
			p, _, _ := unstructured.NestedInt64(obj.Object, "spec", "service", "port")
			conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
			for _, cond := range conds {
				m, _ := cond.(map[string]any)
				if p == int64(port) && m["type"] == "Available" && m["status"] == "True" {
					return nil
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("APIService %s did not become Available", apiServiceName)
}
