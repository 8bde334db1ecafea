// Package frontproxy is how an aggregated API server (virt-api,
// cdi-apiserver) trusts the kube-apiserver in front of it: the aggregator's
// client CA and allowed names from the configmap every kube-apiserver
// publishes for extension servers, and a check of each request's client
// certificate against them.
package frontproxy

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Trust reads the aggregator's client CA and allowed names from
// the configmap every kube-apiserver publishes for extension servers.
func Trust(ctx context.Context, c client.Reader) (*x509.CertPool, []string, error) {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "kube-system", Name: "extension-apiserver-authentication"}, cm); err != nil {
		return nil, nil, fmt.Errorf("reading the aggregator's client CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(cm.Data["requestheader-client-ca-file"])) {
		return nil, nil, errors.New("extension-apiserver-authentication has no requestheader-client-ca-file")
	}
	allowed, err := allowedNames(cm.Data["requestheader-allowed-names"])
	if err != nil {
		return nil, nil, err
	}
	return pool, allowed, nil
}

// allowedNames reads the JSON list of the front proxies' common names. An
// absent list allows every certificate of the CA, as the kube-apiserver
// documents; a list that does not parse is an error, never read as "allow
// all".
func allowedNames(raw string) ([]string, error) {
	if raw == "" {
		return nil, nil
	}
	var allowed []string
	if err := json.Unmarshal([]byte(raw), &allowed); err != nil {
		return nil, fmt.Errorf("reading extension-apiserver-authentication's requestheader-allowed-names %q: %w", raw, err)
	}
	return allowed, nil
}

// Authenticator accepts only requests whose verified client
// certificate is one of the allowed front proxies'.
func Authenticator(allowed []string) func(*http.Request) error {
	return func(r *http.Request) error {
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
			return errors.New("this API only serves requests proxied by the Kubernetes API server")
		}
		cn := r.TLS.VerifiedChains[0][0].Subject.CommonName
		if len(allowed) > 0 && !slices.Contains(allowed, cn) {
			return fmt.Errorf("client %q is not an allowed front proxy", cn)
		}
		return nil
	}
}
