// Package csi is the hostpath provisioner's CSI driver: every node runs one
// instance that serves the identity, controller and node services for the
// storage pools (plain directories) on that node. A volume is a directory
// inside a pool, named after the volume, and is bind-mounted into pods.
package csi

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/container-storage-interface/spec/lib/go/csi"

	"github.com/virtflow/virtflow/kube/hostpathvolume"
)

// DriverName is the CSI driver name, as upstream.
const DriverName = hostpathvolume.DriverName

// TopologyKey is the node topology key the driver reports; volumes live on
// one node's disk, so the node name is their whole topology.
const TopologyKey = hostpathvolume.TopologyKey

// Volume context keys returned by CreateVolume.
const (
	// ContextPath is the volume's directory on the node, which the
	// node's disk activities find volumes by (kube/hostpathvolume).
	ContextPath = hostpathvolume.ContextPath
	// ContextStoragePool is the name of the pool holding the volume.
	ContextStoragePool = "storagePool"
)

// ParamStoragePool is the CreateVolume / GetCapacity parameter (StorageClass
// parameter) that selects the storage pool.
const ParamStoragePool = "storagePool"

// Config is what a driver instance needs to know about its node.
type Config struct {
	// NodeName is the Kubernetes node name; it is the CSI node ID and the
	// value of TopologyKey.
	NodeName string
	// Pools maps storage pool names to absolute directories on this node.
	Pools map[string]string
	// Version is reported by GetPluginInfo.
	Version string
}

// Driver implements csi.IdentityServer, csi.ControllerServer and
// csi.NodeServer for the pools of one node.
type Driver struct {
	// The embedded stubs answer Unimplemented for the RPCs we do not
	// advertise, and keep the driver compiling when the spec grows.
	csi.UnimplementedIdentityServer
	csi.UnimplementedControllerServer
	csi.UnimplementedNodeServer

	nodeName  string
	version   string
	pools     map[string]string
	poolNames []string // sorted, so listings and messages are stable
	locks     *volumeLocks
}

var (
	_ csi.IdentityServer   = (*Driver)(nil)
	_ csi.ControllerServer = (*Driver)(nil)
	_ csi.NodeServer       = (*Driver)(nil)
)

// NewDriver validates cfg and creates the pool directories that are missing,
// so a fresh node can provision without a separate setup step.
func NewDriver(cfg Config) (*Driver, error) {
	if cfg.NodeName == "" {
		return nil, fmt.Errorf("csi driver config: node name is required")
	}
	if len(cfg.Pools) == 0 {
		return nil, fmt.Errorf("csi driver config: at least one storage pool is required")
	}
	d := &Driver{
		nodeName: cfg.NodeName,
		version:  cfg.Version,
		pools:    make(map[string]string, len(cfg.Pools)),
		locks:    newVolumeLocks(),
	}
	for name, dir := range cfg.Pools {
		if err := validatePool(name, dir); err != nil {
			return nil, fmt.Errorf("csi driver config: %w", err)
		}
		clean := filepath.Clean(dir)
		// Traversable by all: guests run as an unprivileged user and open
		// disk images inside volume directories.
		if err := os.MkdirAll(clean, 0o755); err != nil {
			return nil, fmt.Errorf("creating storage pool %q directory: %w", name, err)
		}
		d.pools[name] = clean
		d.poolNames = append(d.poolNames, name)
	}
	sort.Strings(d.poolNames)
	return d, nil
}

// validatePool refuses pool definitions that would make volume paths
// ambiguous or relative to the driver's working directory.
func validatePool(name, dir string) error {
	if name == "" {
		return fmt.Errorf("storage pool with directory %q has no name", dir)
	}
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("storage pool %q: directory %q is not an absolute path", name, dir)
	}
	if filepath.Clean(dir) == "/" {
		return fmt.Errorf("storage pool %q: the root directory cannot be a pool", name)
	}
	return nil
}

// topology is the accessible topology of every volume and of the node.
func (d *Driver) topology() *csi.Topology {
	return &csi.Topology{Segments: map[string]string{TopologyKey: d.nodeName}}
}
