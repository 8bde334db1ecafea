package handler

import (
	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
)

// copyOf is what a node runs of a migrating VMI, from its launcher's
// status; reachable is false when the launcher pod or its socket is gone.
// A launcher that ended with its domain migrated, or whose domain ended,
// holds no copy; an unknown state is reported as a paused copy, which the
// migration never removes.
func copyOf(st launcher.Status, reachable bool) virt.Copy {
	switch {
	case !reachable || st.Exited:
		return virt.CopyGone
	case st.Reason == launcher.ReasonIncoming:
		return virt.CopyIncoming
	case st.State == libvirt.Running:
		return virt.CopyRunning
	}
	return virt.CopyPaused
}
