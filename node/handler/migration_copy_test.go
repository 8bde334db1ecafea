package handler

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
)

func TestWhatANodeRunsOfAMigratingVMI(t *testing.T) {
	require.Equal(t, virt.CopyRunning, copyOf(launcher.Status{State: libvirt.Running}, true))
	require.Equal(t, virt.CopyPaused, copyOf(launcher.Status{State: libvirt.Paused, Reason: "migration"}, true))
	require.Equal(t, virt.CopyIncoming, copyOf(launcher.Status{State: libvirt.NoState, Reason: launcher.ReasonIncoming}, true))
	require.Equal(t, virt.CopyGone, copyOf(launcher.Status{State: libvirt.Shutoff, Reason: launcher.ReasonMigrated, Exited: true}, true))
	require.Equal(t, virt.CopyGone, copyOf(launcher.Status{}, false))
	require.Equal(t, virt.CopyPaused, copyOf(launcher.Status{State: libvirt.NoState}, true), "unknown is never taken for gone")
}
