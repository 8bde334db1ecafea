package platform

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/operators/virtapi"
	"github.com/virtflow/virtflow/operators/webhookcert"
)

// virt-api's Service; the aggregator verifies its certificate for this name.
const (
	virtAPIService = "virt-api"
	apiServiceName = "v1.subresources.kubevirt.io"
)

// startVirtAPI serves subresources.kubevirt.io/v1 over TLS on 127.0.0.1 and
// registers it with the aggregation layer through an ExternalName Service
// pointing at localhost, which needs no kube-proxy and no endpoint IPs.
func startVirtAPI(ctx context.Context, c client.Client, certDir string) error {
	host := virtAPIService + "." + Namespace + ".svc"
	bundle, _, err := webhookcert.Ensure(certDir, []string{host, "localhost", "127.0.0.1"}, webhookcert.DefaultPolicy, time.Now())
	if err != nil {
		return err
	}
	watcher, err := certwatcher.New(filepath.Join(certDir, webhookcert.CertFile), filepath.Join(certDir, webhookcert.KeyFile))
	if err != nil {
		return fmt.Errorf("loading virt-api certificate: %w", err)
	}
	go func() { _ = watcher.Start(ctx) }()
	clientCAs, allowed, err := frontProxyTrust(ctx, c)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening for virt-api: %w", err)
	}
	srv := &virtapi.Server{
		Actions: &virtapi.Actions{Client: c}, Version: Version,
		Nodes:        &virtapi.NodeAgents{Client: c, Namespace: Namespace, TokenSecret: handler.TokenSecret},
		Authenticate: proxyAuthenticator(allowed),
	}
	tlsCfg := &tls.Config{GetCertificate: watcher.GetCertificate, ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: clientCAs, MinVersion: tls.VersionTLS12}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = hs.Close() }()
	go func() { _ = hs.Serve(tls.NewListener(l, tlsCfg)) }()
	return registerAPIService(ctx, c, l.Addr().(*net.TCPAddr).Port, bundle)
}

// frontProxyTrust reads the aggregator's client CA and allowed names from
// the configmap every kube-apiserver publishes for extension servers.
func frontProxyTrust(ctx context.Context, c client.Client) (*x509.CertPool, []string, error) {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "kube-system", Name: "extension-apiserver-authentication"}, cm); err != nil {
		return nil, nil, fmt.Errorf("reading the aggregator's client CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(cm.Data["requestheader-client-ca-file"])) {
		return nil, nil, errors.New("extension-apiserver-authentication has no requestheader-client-ca-file")
	}
	var allowed []string
	_ = json.Unmarshal([]byte(cm.Data["requestheader-allowed-names"]), &allowed)
	return pool, allowed, nil
}

func proxyAuthenticator(allowed []string) func(*http.Request) error {
	return func(r *http.Request) error {
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
			return errors.New("virt-api only serves requests proxied by the Kubernetes API server")
		}
		cn := r.TLS.VerifiedChains[0][0].Subject.CommonName
		if len(allowed) > 0 && !slices.Contains(allowed, cn) {
			return fmt.Errorf("client %q is not an allowed front proxy", cn)
		}
		return nil
	}
}

func registerAPIService(ctx context.Context, c client.Client, port int, bundle []byte) error {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: virtAPIService}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, svc, func() error {
		svc.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost"}
		return nil
	}); err != nil {
		return fmt.Errorf("writing Service %s: %w", virtAPIService, err)
	}
	apiSvc := &unstructured.Unstructured{}
	apiSvc.SetAPIVersion("apiregistration.k8s.io/v1")
	apiSvc.SetKind("APIService")
	apiSvc.SetName(apiServiceName)
	apiSvc.Object["spec"] = map[string]any{
		"group": virtapi.SubresourceGroup, "version": virtapi.SubresourceVersion,
		"groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
		"caBundle": bundle,
		"service":  map[string]any{"namespace": Namespace, "name": virtAPIService, "port": int64(port)},
	}
	if err := c.Patch(ctx, apiSvc, client.Apply, client.FieldOwner("virt-api"), client.ForceOwnership); err != nil {
		return fmt.Errorf("registering APIService %s: %w", apiServiceName, err)
	}
	return waitAPIServiceAvailable(ctx, c, port)
}

func waitAPIServiceAvailable(ctx context.Context, c client.Client, port int) error {
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
