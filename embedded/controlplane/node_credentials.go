package controlplane

import (
	"fmt"
	"net"
	"path/filepath"
)

// NodeCredentials are the files a kubelet and kube-proxy on one node use to
// join this control plane, all issued by the cluster CA.
type NodeCredentials struct {
	// CAFile is the cluster CA: the kubelet verifies client certificates
	// (kube-apiserver's) with it.
	CAFile string
	// KubeletKubeconfig authenticates as system:node:<node> in
	// system:nodes, which the Node authorizer and NodeRestriction expect.
	KubeletKubeconfig string
	// KubeletCertFile and KubeletKeyFile are the kubelet's serving pair,
	// naming the node and its IP, which kube-apiserver verifies.
	KubeletCertFile, KubeletKeyFile string
	// ProxyKubeconfig authenticates as system:kube-proxy.
	ProxyKubeconfig string
}

// NodeCredentials issues, once, the credentials of the node named node at
// ip; a kept serving certificate that lacks ip is issued again.
func (cp *ControlPlane) NodeCredentials(node string, ip net.IP) (NodeCredentials, error) {
	dir := cp.path("pki")
	ca, err := loadAuthority(filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key"))
	if err != nil {
		return NodeCredentials{}, fmt.Errorf("loading cluster CA: %w", err)
	}
	client := "kubelet-" + node + "-client"
	serving := "kubelet-" + node + "-serving"
	leaves := []leafSpec{
		{file: client, cn: "system:node:" + node, orgs: []string{"system:nodes"}},
		{file: serving, cn: "system:node:" + node, server: true, dns: []string{node}, ips: []net.IP{ip}},
	}
	for _, l := range leaves {
		if err := ensureLeaf(dir, ca, l); err != nil {
			return NodeCredentials{}, err
		}
	}
	creds := NodeCredentials{
		CAFile:            filepath.Join(dir, "ca.crt"),
		KubeletKubeconfig: cp.path("kubelet-" + node + ".kubeconfig"),
		KubeletCertFile:   filepath.Join(dir, serving+".crt"),
		KubeletKeyFile:    filepath.Join(dir, serving+".key"),
		ProxyKubeconfig:   cp.path("kube-proxy.kubeconfig"),
	}
	if err := cp.writeKubeconfig(filepath.Base(creds.KubeletKubeconfig), client); err != nil {
		return NodeCredentials{}, err
	}
	if err := cp.writeKubeconfig(filepath.Base(creds.ProxyKubeconfig), "kube-proxy"); err != nil {
		return NodeCredentials{}, err
	}
	return creds, nil
}
