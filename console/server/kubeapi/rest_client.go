package kubeapi

import (
	"fmt"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// RESTClient is a raw client acting as the token's owner, for the routes
// that read or create one object on the user's behalf. Its errors from the
// apiserver are *apierrors.StatusError, so a route can hand the user the
// apiserver's own refusal.
func (u *Upstream) RESTClient(token string) (rest.Interface, error) {
	cfg := u.restConfig(token)
	// Unversioned: the routes name absolute paths of aggregated and
	// custom APIs the client-go scheme does not know.
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building a client for the kube-apiserver: %w", err)
	}
	return c, nil
}

// Body is a result's body, or its error enriched with the Status the
// apiserver answered, which Result.Raw leaves out: the user should read
// the apiserver's own message.
func Body(res rest.Result) ([]byte, error) {
	if err := res.Error(); err != nil {
		return nil, err
	}
	return res.Raw()
}
