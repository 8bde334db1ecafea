package controlplane

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
)

// RegistryCredentials are the node registry's TLS files. The registry has a
// CA of its own so that only certificates issued for pushing (not every
// client certificate of the cluster CA: kubelets', kube-proxy's) can write
// to it.
type RegistryCredentials struct {
	// CAFile is the registry CA: pushers verify the registry with it and the
	// registry verifies pushers with it.
	CAFile string
	// CertFile and KeyFile are the registry's serving pair.
	CertFile, KeyFile string
	// PusherCertFile and PusherKeyFile are the platform's push identity,
	// which stays on the host: `up` publishes images with it, and an admin
	// may use it to push their own.
	PusherCertFile, PusherKeyFile string
}

// RegistryServerName is the name the registry's certificate carries beside
// its address; containerd knows the registry by it.
const RegistryServerName = "registry.virtflow.local"

// RegistryCredentials issues, once, the registry's credentials for a
// registry serving at ip; a kept serving certificate lacking ip is issued
// again.
func (cp *ControlPlane) RegistryCredentials(ip net.IP) (RegistryCredentials, error) {
	dir := cp.path("pki")
	ca, err := ensureCA(dir, "registry-ca", "virtflow-registry-ca")
	if err != nil {
		return RegistryCredentials{}, err
	}
	leaves := []leafSpec{
		{file: "registry", cn: RegistryServerName, server: true, dns: []string{RegistryServerName}, ips: []net.IP{ip}},
		{file: "registry-pusher", cn: "virtflow-registry-pusher"},
	}
	for _, l := range leaves {
		if err := ensureLeaf(dir, ca, l); err != nil {
			return RegistryCredentials{}, err
		}
	}
	f := func(name string) string { return filepath.Join(dir, name) }
	return RegistryCredentials{
		CAFile: f("registry-ca.crt"), CertFile: f("registry.crt"), KeyFile: f("registry.key"),
		PusherCertFile: f("registry-pusher.crt"), PusherKeyFile: f("registry-pusher.key"),
	}, nil
}

// PushTransport is an HTTP transport that presents the push identity and
// trusts only the registry CA.
func (c RegistryCredentials) PushTransport() (http.RoundTripper, error) {
	pair, err := tls.LoadX509KeyPair(c.PusherCertFile, c.PusherKeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the registry push identity: %w", err)
	}
	caPEM, err := os.ReadFile(c.CAFile)
	if err != nil {
		return nil, fmt.Errorf("reading the registry CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("no certificate in the registry CA %s", c.CAFile)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}
