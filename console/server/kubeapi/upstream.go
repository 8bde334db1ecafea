// Package kubeapi is the console's way to the kube-apiserver: always as the
// logged-in user, never as the console itself. It keeps where the
// apiserver is and how to trust its certificate, and drops every
// credential of the console's own configuration, so that RBAC decides for
// the console exactly as it would for the user's kubectl.
package kubeapi

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"k8s.io/client-go/rest"
)

// userAgent names the console in the apiserver's audit log.
const userAgent = "virtflow-console"

// Upstream reaches one kube-apiserver.
type Upstream struct {
	target    *url.URL
	transport *http.Transport
	answers   answers
}

// New returns the way to the apiserver cfg names. Only its address and
// its TLS trust are kept: cfg's token, client certificate, exec plugin and
// impersonation are never used.
func New(cfg *rest.Config) (*Upstream, error) {
	anon := rest.AnonymousClientConfig(cfg)
	target, _, err := rest.DefaultServerUrlFor(anon)
	if err != nil {
		return nil, fmt.Errorf("reading the apiserver address %q: %w", cfg.Host, err)
	}
	tlsCfg, err := rest.TLSConfigFor(anon)
	if err != nil {
		return nil, fmt.Errorf("reading the apiserver's TLS settings: %w", err)
	}
	if tlsCfg != nil {
		// Websocket upgrades (watch, console, vnc) exist only in HTTP/1.1.
		tlsCfg.NextProtos = []string{"http/1.1"}
	}
	return &Upstream{target: target, transport: newTransport(tlsCfg, anon)}, nil
}

func newTransport(tlsCfg *tls.Config, cfg *rest.Config) *http.Transport {
	dial := (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	if cfg.Dial != nil {
		dial = cfg.Dial
	}
	proxy := http.ProxyFromEnvironment
	if cfg.Proxy != nil {
		proxy = cfg.Proxy
	}
	return &http.Transport{
		Proxy: proxy, DialContext: dial, TLSClientConfig: tlsCfg, TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 32, IdleConnTimeout: 90 * time.Second,
	}
}

// restConfig is a client configuration acting as the token's owner over
// the shared transport. Rate limiting is off: each request builds its own
// client, and a page's burst of access reviews must not queue behind a
// limiter meant for a long-lived controller. JSON keeps the reviews
// readable by anything that speaks the API, test stand-ins included.
func (u *Upstream) restConfig(token string) *rest.Config {
	return &rest.Config{
		Host: u.target.String(), BearerToken: token, Transport: u.transport,
		UserAgent: userAgent, QPS: -1, Timeout: 30 * time.Second,
		ContentConfig: rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"},
	}
}

// Reachable reports whether the apiserver answers at all; an answer of
// 401 to the console's anonymous request counts, since it came from the
// apiserver.
func (u *Upstream) Reachable(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.target.JoinPath("/readyz").String(), nil)
	if err != nil {
		return fmt.Errorf("building the readiness request: %w", err)
	}
	resp, err := u.transport.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("reaching the apiserver at %s: %w", u.target.Host, err)
	}
	resp.Body.Close()
	if resp.StatusCode >= http.StatusInternalServerError {
		return fmt.Errorf("the apiserver at %s answers %s", u.target.Host, resp.Status)
	}
	return nil
}
