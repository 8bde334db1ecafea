package controlplane

import (
	"net"
	"path/filepath"
)

// ConsoleCredentials are the web console's serving certificate, issued by
// a CA of its own that `up` prints for browsers to trust: the cluster CA
// is not handed out as a CA for a web server.
type ConsoleCredentials struct {
	CAFile, CertFile, KeyFile string
}

// ConsoleCredentials issues, once, the console's certificate for the
// names and addresses a browser or a pod reaches it by.
func (cp *ControlPlane) ConsoleCredentials(dns []string, ips []net.IP) (ConsoleCredentials, error) {
	dir := cp.path("pki")
	ca, err := ensureCA(dir, "console-ca", "virtflow-console-ca")
	if err != nil {
		return ConsoleCredentials{}, err
	}
	if err := ensureLeaf(dir, ca, leafSpec{file: "console", cn: "virtflow-console", server: true, dns: dns, ips: ips}); err != nil {
		return ConsoleCredentials{}, err
	}
	return ConsoleCredentials{
		CAFile: filepath.Join(dir, "console-ca.crt"), CertFile: filepath.Join(dir, "console.crt"), KeyFile: filepath.Join(dir, "console.key"),
	}, nil
}
