// Package hostpathvolume tells where a volume of the hostpath provisioner's
// CSI driver lives on its node, from its PersistentVolume alone: a
// cluster-scoped object only the platform writes, unlike the claims and
// workflow inputs a tenant can shape.
package hostpathvolume

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The driver's names, which node/csi serves.
const (
	// DriverName is the hostpath provisioner's CSI driver.
	DriverName = "kubevirt.io.hostpath-provisioner"
	// TopologyKey is the node label the driver's volumes are pinned by.
	TopologyKey = "topology.hostpath.csi/node"
	// ContextPath is the volume attribute holding the volume's directory.
	ContextPath = "path"
)

// ErrNotOurs marks a volume this package cannot vouch for: of another
// driver, on another node, or outside the node's storage root.
var ErrNotOurs = errors.New("not a hostpath volume of this node")

// Dir is the directory of the driver's volume pv on node: the path its
// CreateVolume reported, which must be absolute, clean, named after the
// volume's handle (the driver names volume directories so) and strictly
// under root (the node's hostpath root, "/" on a real node); the volume's
// node affinity must pin it to node and nowhere else.
func Dir(pv *corev1.PersistentVolume, node, root string) (string, error) {
	csi := pv.Spec.CSI
	if csi == nil || csi.Driver != DriverName {
		return "", fmt.Errorf("%w: volume %s is not provisioned by %s", ErrNotOurs, pv.Name, DriverName)
	}
	dir := csi.VolumeAttributes[ContextPath]
	if err := checkDir(dir, csi.VolumeHandle, root); err != nil {
		return "", fmt.Errorf("%w: volume %s: %w", ErrNotOurs, pv.Name, err)
	}
	if err := pinnedTo(pv.Spec.NodeAffinity, node); err != nil {
		return "", fmt.Errorf("%w: volume %s: %w", ErrNotOurs, pv.Name, err)
	}
	return dir, nil
}

// checkDir refuses a path that could name anything but a volume directory
// under root.
func checkDir(dir, handle, root string) error {
	if handle == "" || strings.ContainsAny(handle, "/\x00") || strings.HasPrefix(handle, ".") {
		return fmt.Errorf("its handle %q cannot name a volume directory", handle)
	}
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir || filepath.Base(dir) != handle {
		return fmt.Errorf("its path %q is not a clean absolute directory named after its handle %q", dir, handle)
	}
	root = filepath.Clean(root)
	if !filepath.IsAbs(root) {
		return fmt.Errorf("the node's hostpath root %q is not absolute", root)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("its path %s is not under the node's hostpath root %s", dir, root)
	}
	return nil
}

// pinnedTo requires every required term to select node, and node only, by
// the driver's topology key.
func pinnedTo(a *corev1.VolumeNodeAffinity, node string) error {
	if node == "" {
		return errors.New("this node's name is unknown")
	}
	if a == nil || a.Required == nil || len(a.Required.NodeSelectorTerms) == 0 {
		return errors.New("it has no node affinity")
	}
	for _, term := range a.Required.NodeSelectorTerms {
		if !termPins(term, node) {
			return fmt.Errorf("its node affinity does not pin it to node %s", node)
		}
	}
	return nil
}

func termPins(term corev1.NodeSelectorTerm, node string) bool {
	for _, e := range term.MatchExpressions {
		if e.Key == TopologyKey && e.Operator == corev1.NodeSelectorOpIn && len(e.Values) == 1 && e.Values[0] == node {
			return true
		}
	}
	return false
}
