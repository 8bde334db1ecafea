// Package launcherpod is the layout of a launcher pod that virt-controller
// renders, the kubelet runs and virt-handler reaches from the node: which
// volumes it has, where they are mounted inside the pod, and where the
// kubelet puts them on the node. It has no dependencies so that the
// controller, the node agent and the launcher agree without linking each
// other.
package launcherpod

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
)

// Image is the launcher image: Debian's libvirt and QEMU with virt-launcher.
// Embedded nodes import it; it is never pulled, hence IfNotPresent.
const Image = "virtflow.local/virt-launcher:latest"

// Command starts the launcher inside the pod.
var Command = []string{"/usr/bin/virt-launcher", "--pod"}

// User runs everything in a launcher pod: libvirtd, QEMU and the launcher.
const User = 65534

// Volume names of a launcher pod of its own. VMI volumes keep their own
// names in the pod, so a VMI volume may not take one of these (Reserved).
const (
	// PrivateVolume holds the launcher's config, disks, logs and status.
	PrivateVolume = "virt-private"
	// SocketsVolume holds the command socket, libvirt's runtime state and
	// the VNC and guest agent sockets.
	SocketsVolume = "virt-sockets"
	// CacheVolume is the node's libvirt cache, so QEMU's capabilities are
	// probed once per node rather than once per VM.
	CacheVolume = "virt-libvirt-cache"
	// KernelBootVolume is the image of spec.domain.firmware.kernelBoot.
	KernelBootVolume = "virt-kernel-boot"
)

// Reserved tells whether a VMI volume name is one the launcher pod uses
// for itself.
func Reserved(volume string) bool {
	switch volume {
	case PrivateVolume, SocketsVolume, CacheVolume, KernelBootVolume:
		return true
	}
	return false
}

// Mount paths inside the launcher pod.
const (
	PrivateDir        = "/var/run/kubevirt-private"
	SocketsDir        = "/var/run/kubevirt/sockets"
	CacheDir          = "/var/cache/virtflow-libvirt"
	ContainerDisksDir = "/var/run/kubevirt/container-disks"
	KernelBootDir     = "/var/run/kubevirt/kernel-boot"
	// DisksDir holds one directory per filesystem claim, where the kubelet
	// mounts the claim's volume.
	DisksDir = "/var/run/kubevirt-private/vmi-disks"
)

// HostCacheDir is CacheVolume on the node.
const HostCacheDir = "/var/lib/kubevirt/libvirt-cache"

// SerialLog is the guest's serial console log in PrivateDir, which the
// guest-console-log container streams.
const SerialLog = "serial.log"

// SocketFile is the launcher's command socket in SocketsDir.
const SocketFile = "launcher.sock"

// ContainerDiskDir is where a containerDisk volume's image is mounted.
func ContainerDiskDir(volume string) string { return path.Join(ContainerDisksDir, volume) }

// ClaimDir is where a filesystem claim volume is mounted.
func ClaimDir(volume string) string { return path.Join(DisksDir, volume) }

// ClaimDevice is where a block claim volume appears.
func ClaimDevice(volume string) string { return path.Join("/dev", volume) }

// HostEmptyDir is where the kubelet rooted at kubeletRoot keeps an emptyDir
// volume of the pod with the given UID.
func HostEmptyDir(kubeletRoot, podUID, volume string) string {
	return filepath.Join(kubeletRoot, "pods", podUID, "volumes", "kubernetes.io~empty-dir", volume)
}

// SecretsDir holds the secrets the VMI's access credentials name, each in
// its own volume, as upstream's launcher has them.
const SecretsDir = "/var/run/kubevirt-private/secret"

// AccessCredentialVolume is the pod volume of an access credential's
// secret, upstream's name.
func AccessCredentialVolume(secret string) string { return secret + "-access-cred" }

// AccessCredentialDir is where that secret's keys are.
func AccessCredentialDir(secret string) string {
	return path.Join(SecretsDir, AccessCredentialVolume(secret))
}

// CloudInitSecretVolume is the pod volume of a cloud-init volume's user
// data secret, or of its network data secret.
func CloudInitSecretVolume(volume string, network bool) string {
	if network {
		return volume + "-ndata"
	}
	return volume
}

// CloudInitSecretDir is where that secret is mounted.
func CloudInitSecretDir(volume string, network bool) string {
	return path.Join(SecretsDir, CloudInitSecretVolume(volume, network))
}

// SecondaryInterface is the pod interface Multus makes for a secondary
// network, upstream's hashed name: "pod" and the network name's SHA-256,
// cut so that "-nic" still fits an interface name.
func SecondaryInterface(network string) string {
	sum := sha256.Sum256([]byte(network))
	return fmt.Sprintf("pod%x", sum)[:14]
}

// InstanceID is a VMI's name as the value of the vmi.kubevirt.io/id label
// of its launcher pod, which virtctl expose selects: names longer than a
// label allows are cut and suffixed with a hash of the whole, as upstream.
func InstanceID(name string) string {
	if len(name) <= 63 {
		return name
	}
	sum := sha1.Sum([]byte(name))
	return name[:54] + "-" + hex.EncodeToString(sum[:])[:8]
}
