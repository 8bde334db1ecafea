// Package launcher is virt-launcher: one process per VirtualMachineInstance
// that runs its own session-mode libvirt daemon as an unprivileged user,
// prepares the VMI's disks, starts the domain, and serves a command socket
// (status, pause, unpause, shutdown, console) to virt-handler.
package launcher

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/podnet"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// Config is what virt-handler hands a launcher, as config.json in its
// directory.
type Config struct {
	// VMI is the instance to run.
	VMI kubevirtv1.VirtualMachineInstance `json:"vmi"`
	// Dir is the launcher's private directory (disks, libvirt state, logs).
	Dir string `json:"dir"`
	// DomainType is kvm or qemu (TCG), detected by virt-handler.
	DomainType domain.Type `json:"domainType"`
	// UID and GID run libvirtd and qemu; never root.
	UID int `json:"uid"`
	GID int `json:"gid"`
	// CacheDir is shared by all launchers of a node so libvirt's qemu
	// capability cache is probed once per node, not once per VM.
	CacheDir string `json:"cacheDir"`
	// ImageStore resolves containerDisk and kernel-boot images.
	ImageStore string `json:"imageStore"`
	// PVCPaths maps a PVC or DataVolume claim name to its file or device,
	// resolved by virt-handler from the bound PersistentVolume.
	PVCPaths map[string]PVCPath `json:"pvcPaths,omitempty"`
	// Pod is set when the launcher runs in a launcher pod: its sockets,
	// container disks and kernel-boot image are where launcherpod puts
	// them, and it already runs as UID.
	Pod bool `json:"pod,omitempty"`
	// Network is how virt-handler connected the VMI's interfaces in the
	// pod's network namespace.
	Network podnet.Plan `json:"network,omitzero"`
	// MigrationTarget has the launcher receive its domain from a live
	// migration: it prepares the disks and the network, starts libvirt
	// and waits for the source's libvirt to bring the running domain.
	MigrationTarget bool `json:"migrationTarget,omitempty"`
}

// PVCPath is where a claim's data lives on this node.
type PVCPath struct {
	Path  string `json:"path"`
	Block bool   `json:"block,omitempty"`
}

// Paths inside a launcher directory.
const (
	ConfigFile = "config.json"
	SocketFile = "launcher.sock"
	SerialLog  = launcherpod.SerialLog
	StatusFile = "status.json"
)

// runtimeDir holds the launcher's sockets and libvirt's state. It is
// short because unix socket paths are limited to 108 bytes, while the
// launcher directory's path grows with the namespace and pod names, and
// libvirt nests its qemu monitor socket several levels deep.
func (cfg Config) runtimeDir() string {
	if cfg.Pod {
		return launcherpod.SocketsDir
	}
	return RuntimeDirFor(cfg.Dir)
}

// LibvirtURI is where the launcher's libvirt daemon listens, the URI a
// migration's source gives as its target (through the node agents'
// proxy across nodes).
func (cfg Config) LibvirtURI() string {
	return "qemu+unix:///session?socket=" + filepath.Join(cfg.runtimeDir(), "run", "libvirt", "libvirt-sock")
}

// socket is the command socket this launcher serves.
func (cfg Config) socket() string { return filepath.Join(cfg.runtimeDir(), SocketFile) }

// containerDiskDir is where the image of a containerDisk volume is: mounted
// by the kubelet in a pod, else in the node's local image store.
func (cfg Config) containerDiskDir(volume, image string) (string, error) {
	if cfg.Pod {
		return launcherpod.ContainerDiskDir(volume), nil
	}
	return ImageDir(cfg.ImageStore, image)
}

// kernelBootDir is where the kernel-boot image is.
func (cfg Config) kernelBootDir(image string) (string, error) {
	if cfg.Pod {
		return launcherpod.KernelBootDir, nil
	}
	return ImageDir(cfg.ImageStore, image)
}

// vncSocket is where qemu serves the guest's display; simulated domains
// and VMIs without a graphics device have none.
func (cfg Config) vncSocket() string {
	a := cfg.VMI.Spec.Domain.Devices.AutoattachGraphicsDevice
	if cfg.DomainType == domain.Simulated || (a != nil && !*a) {
		return ""
	}
	return filepath.Join(cfg.runtimeDir(), "vnc.sock")
}

// agentSocket is the host end of the guest agent channel; simulated
// domains have none.
func (cfg Config) agentSocket() string {
	if cfg.DomainType == domain.Simulated {
		return ""
	}
	return filepath.Join(cfg.runtimeDir(), "ga.sock")
}

// RuntimeDirFor is the short runtime directory of the launcher in dir. Every
// process of that launcher (libvirtd, qemu) has it on its command line or
// environment, which is how leftovers are found after a launcher is killed.
func RuntimeDirFor(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join("/run/virtflow", hex.EncodeToString(sum[:])[:12])
}

// Socket is the command socket path of the launcher in dir; it lives in
// the short runtime directory, for the same reason as libvirt's sockets.
func Socket(dir string) string { return filepath.Join(RuntimeDirFor(dir), SocketFile) }

// WriteConfig stores cfg in its directory.
func WriteConfig(cfg Config) error {
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return fmt.Errorf("creating launcher directory: %w", err)
	}
	return writeConfigFile(filepath.Join(cfg.Dir, ConfigFile), cfg)
}

// WriteConfigAt hands cfg to the launcher of a pod whose private directory
// is hostDir on the node. The launcher runs as cfg.UID, so the file is
// its; it is written aside and renamed, so the launcher waiting for it
// never reads half of it.
func WriteConfigAt(hostDir string, cfg Config) error {
	tmp := filepath.Join(hostDir, "."+ConfigFile)
	if err := writeConfigFile(tmp, cfg); err != nil {
		return err
	}
	if err := os.Chown(tmp, cfg.UID, cfg.GID); err != nil {
		return fmt.Errorf("handing launcher config to uid %d: %w", cfg.UID, err)
	}
	if err := os.Rename(tmp, filepath.Join(hostDir, ConfigFile)); err != nil {
		return fmt.Errorf("publishing launcher config: %w", err)
	}
	return nil
}

func writeConfigFile(file string, cfg Config) error {
	data, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("encoding launcher config: %w", err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return fmt.Errorf("writing launcher config: %w", err)
	}
	return nil
}

// ReadConfig loads the config from dir.
func ReadConfig(dir string) (Config, error) {
	var cfg Config
	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return cfg, fmt.Errorf("reading launcher config: %w", err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, fmt.Errorf("decoding launcher config: %w", err)
	}
	return cfg, nil
}
