package libvirtfake

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/node/libvirt"
)

func TestAMigratedDomainRunsOnThePeerAndIsGoneHere(t *testing.T) {
	ctx := context.Background()
	src, dst := New(), New()
	src.Peers = map[string]*Hypervisor{"qemu+unix:///session?socket=/t": dst}
	_, err := src.Create(ctx, `<domain type="qemu"><name>d</name></domain>`, false)
	require.NoError(t, err)
	require.ErrorContains(t, src.Migrate(ctx, "d", libvirt.MigrateOptions{DestURI: "qemu+unix:///nowhere"}), "no libvirt daemon at qemu+unix:///nowhere")
	_, err = src.Lookup(ctx, "d")
	require.NoError(t, err, "a failed migration leaves the domain where it was")

	require.NoError(t, src.Migrate(ctx, "d", libvirt.MigrateOptions{DestURI: "qemu+unix:///session?socket=/t"}))
	_, err = src.Lookup(ctx, "d")
	require.ErrorIs(t, err, libvirt.ErrNotFound)
	got, err := dst.Lookup(ctx, "d")
	require.NoError(t, err)
	require.Equal(t, libvirt.Running, got.State)

	dst.MigrateErr = errors.New("boom")
	require.EqualError(t, dst.Migrate(ctx, "d", libvirt.MigrateOptions{}), "boom")
}
