package addons

import (
	"fmt"
	"net/netip"
	"path/filepath"

	"github.com/virtflow/virtflow/deploy"
	"github.com/virtflow/virtflow/embedded/images"
)

// CoreDNSImage is the name CoreDNS's image is imported under; the manifest
// uses it.
const CoreDNSImage = "virtflow.local/coredns:1.15.0"

// ClusterDNS is CoreDNS from binDir behind the kube-dns Service at
// serviceIP; it answers the node registry's name with registryIP.
func ClusterDNS(binDir, serviceIP, registryIP string) Addon {
	return Addon{
		Name:     "coredns",
		Image:    images.Command(CoreDNSImage, filepath.Join(binDir, "coredns"), "/coredns", "65532"),
		manifest: deploy.ClusterDNS,
		values:   map[string]string{"CLUSTER_DNS_IP": serviceIP, "REGISTRY_IP": registryIP},
	}
}

// DNSServiceIP is the DNS Service's ClusterIP: the tenth address of the
// service range, as kubeadm picks it.
func DNSServiceIP(serviceCIDR string) (string, error) {
	prefix, err := netip.ParsePrefix(serviceCIDR)
	if err != nil {
		return "", fmt.Errorf("service range %q: %w", serviceCIDR, err)
	}
	ip := prefix.Masked().Addr()
	for range 10 {
		ip = ip.Next()
	}
	if !prefix.Contains(ip) {
		return "", fmt.Errorf("service range %s has no tenth address for DNS", serviceCIDR)
	}
	return ip.String(), nil
}
