package kubenode

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// RegistryName is the registry name images in the node's own registry
// carry; containerd sends it to the registry at RegistryAddress.
const RegistryName = "registry.virtflow.local"

// RegistryPort is where the node's registry serves pulls, on the node IP.
const RegistryPort = 5000

// RegistryPushPort is where it takes pushes and deletes: TLS, and only from
// the platform's push identity.
const RegistryPushPort = 5001

// RegistryAddress is the node registry's host:port.
func (n *Node) RegistryAddress() string {
	return net.JoinHostPort(n.registryIP().String(), strconv.Itoa(RegistryPort))
}

// registryIP is where the registry listens: the first node's address,
// which other nodes reach through the host.
func (n *Node) registryIP() netip.Addr {
	if n.cfg.RegistryIP.IsValid() {
		return n.cfg.RegistryIP
	}
	return n.IP()
}

// RegistryPushAddress is the node registry's push endpoint, host:port.
func (n *Node) RegistryPushAddress() string {
	return net.JoinHostPort(n.registryIP().String(), strconv.Itoa(RegistryPushPort))
}

// writeRegistryHosts tells containerd to reach the node's registry, by its
// name or its address, over plain HTTP: it is local to the node, and only
// serves pulls there. No outside registry is mirrored to it: an image
// named docker.io/... comes from docker.io or not at all, never from
// whatever the node's registry holds under that name.
func (n *Node) writeRegistryHosts() error {
	server := "http://" + n.RegistryAddress()
	hosts := fmt.Sprintf("server = %q\n\n[host.%q]\n  capabilities = [\"pull\", \"resolve\"]\n", server, server)
	for _, name := range []string{RegistryName, n.RegistryAddress()} {
		if err := writeFile(n.hostPath("certs.d", name, "hosts.toml"), []byte(hosts)); err != nil {
			return err
		}
	}
	return nil
}
