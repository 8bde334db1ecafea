// Package handler is virt-handler, the node agent. On a real node the
// kubelet runs the launcher pods and the agent hands each launcher its VMI
// through the pod's private volume, then reports the VMI's state from the
// launcher's socket. On a simulated node (a benchmark tool) there is no
// kubelet: the agent registers the Node itself and runs the launcher pods
// bound to it as local processes.
package handler

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/virtflow/virtflow/kube/mtls"

	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/node/libvirt/domain"
)

// Config describes one node agent.
type Config struct {
	// NodeName is the Node this agent registers and serves.
	NodeName string
	// NodeIP is reported as the node's and its pods' address.
	NodeIP string
	// Dir holds one directory per launcher pod.
	Dir string
	// ImageStore resolves containerDisk and kernel-boot images.
	ImageStore string
	// UID and GID run the launchers' libvirtd and qemu.
	UID, GID int
	// DomainType is kvm or qemu; DetectDomainType picks it.
	DomainType domain.Type
	// KubeletRoot, when set, is the root directory of the kubelet that runs
	// this node's pods: the agent neither registers the Node nor runs
	// launchers, and finds each launcher's volumes under it.
	KubeletRoot string
	// LauncherCommand starts a launcher on a simulated node; "--dir <dir>"
	// is appended.
	LauncherCommand []string
	// Capacity overrides the detected CPU, memory and pod capacity, for
	// nodes of simulated (libvirt test driver) domains that carry more VMs
	// than the host could run.
	Capacity corev1.ResourceList
	// Namespace is the install namespace, where the agent publishes its
	// API token for virt-api.
	Namespace string
	// HostRoot prefixes hostpath storage pool paths; Dir/host when empty,
	// so nodes sharing one machine keep separate pools.
	HostRoot string
	// APITLS, when set, serves the agent's API to virt-api over mutual
	// TLS. virt-handler always sets it; only agents of simulated nodes in
	// one test process, which virt-api reaches in that process, go without.
	APITLS *mtls.Files
}

// StorageRoot is where this node's hostpath storage pools live.
func (c Config) StorageRoot() string {
	if c.HostRoot != "" {
		return c.HostRoot
	}
	return filepath.Join(c.Dir, "host")
}

// DetectDomainType returns kvm only where /dev/kvm exists and the CPU
// advertises hardware virtualisation (vmx or svm). A paravirtual /dev/kvm
// without them cannot run ordinary guest kernels, so such hosts get TCG.
// VIRTFLOW_DOMAIN_TYPE overrides the detection.
func DetectDomainType() domain.Type {
	if t := os.Getenv("VIRTFLOW_DOMAIN_TYPE"); t != "" {
		return domain.Type(t)
	}
	if _, err := os.Stat("/dev/kvm"); err != nil {
		return domain.TCG
	}
	cpuinfo, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return domain.TCG
	}
	for _, line := range strings.Split(string(cpuinfo), "\n") {
		if strings.HasPrefix(line, "flags") && (strings.Contains(line, " vmx") || strings.Contains(line, " svm")) {
			return domain.KVM
		}
	}
	return domain.TCG
}

func (c Config) cacheDir() string { return filepath.Join(c.Dir, ".libvirt-cache") }

func (c Config) podDir(namespace, name string) string {
	return filepath.Join(c.Dir, namespace+"_"+name)
}
