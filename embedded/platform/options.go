// Package platform is `virtflow up`: it brings up the embedded Kubernetes
// control plane, a real node (containerd, kubelet, kube-proxy, cluster DNS
// and a registry) and the Temporal server, applies deploy/embedded (every
// operator, webhook and worker as pods), and creates the default
// HyperConverged.
package platform

import (
	"io"
	"os"
	"path/filepath"
)

// Options configure one `virtflow up`.
type Options struct {
	// ConsolePort is the loopback port the web console is relayed to; 0
	// picks a free one.
	ConsolePort int
	// DataDir holds everything that must survive a restart.
	DataDir string
	// ToolsDir is the tools/k8s module the control-plane binaries build from.
	ToolsDir string
	// CacheDir keeps built binaries across checkouts.
	CacheDir string
	// APIServerPort, EtcdPort, TemporalPort and UIPort are fixed so a
	// resumed platform keeps its addresses; 0 picks free ports (tests).
	APIServerPort, EtcdPort, TemporalPort, UIPort int
	// CreateHyperConverged creates the default HyperConverged when absent.
	CreateHyperConverged bool
	// Out receives progress lines meant for a person.
	Out io.Writer
	// LogDir receives component logs; empty means stderr (tests).
	LogDir string
	// TestGuestDir, when set, is the output of hack/mkguest.sh, pushed to
	// the node's registry as the containerDisk
	// registry.virtflow.local/virtflow/test-guest:latest.
	TestGuestDir string
	// LauncherBase is the launcher image's base root filesystem tarball;
	// hack/launcher-base.sh builds (once) and names it when empty.
	LauncherBase string
	// NoTekton leaves Tekton Pipelines out of the node.
	NoTekton bool
	// LibguestfsBase is the libguestfs-tools image's root filesystem
	// tarball; hack/libguestfs-base.sh builds (once) and names it when
	// empty.
	LibguestfsBase string
	// CLIDownloads is the output of hack/virtctl-builds.sh, which builds
	// (once) and names it when empty: the virtctl builds the
	// virtctl-downloads image carries for hco's cli-download.
	CLIDownloads string
	// Nodes is how many nodes to run; 0 runs as many as the last start did
	// (one the first time).
	Nodes int
}

// DefaultDataDir is $VIRTFLOW_DATA_DIR, else /var/lib/virtflow for root
// (whose home the unprivileged qemu of a launcher cannot traverse), else a
// per-user directory.
func DefaultDataDir() string {
	if d := os.Getenv("VIRTFLOW_DATA_DIR"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		return "/var/lib/virtflow"
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "virtflow")
	}
	return filepath.Join(os.TempDir(), "virtflow")
}

// Install namespace and names of the default HyperConverged.
const (
	Namespace = "kubevirt-hyperconverged"
	HCName    = "kubevirt-hyperconverged"
)
