package csi

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func publishRequest(id, target string, readOnly bool) *csi.NodePublishVolumeRequest {
	return &csi.NodePublishVolumeRequest{
		VolumeId:         id,
		TargetPath:       target,
		VolumeCapability: mountCapability(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER),
		Readonly:         readOnly,
	}
}

func TestPublishShowsVolumeAndUnpublishRemovesIt(t *testing.T) {
	requireRoot(t)
	d, base := newTestDriver(t)
	ctx := context.Background()
	resp, err := d.CreateVolume(ctx, createRequest("pvc-1", "fast"))
	require.NoError(t, err)
	volDir := resp.GetVolume().GetVolumeContext()[ContextPath]
	require.NoError(t, os.WriteFile(filepath.Join(volDir, "hello"), []byte("from the volume"), 0o600))
	target := filepath.Join(base, "pods", "uid", "mount")

	for range 2 { // the second call must notice the existing mount
		_, err = d.NodePublishVolume(ctx, publishRequest("pvc-1", target, false))
		require.NoError(t, err)
	}
	data, err := os.ReadFile(filepath.Join(target, "hello"))
	require.NoError(t, err)
	assert.Equal(t, "from the volume", string(data))
	require.NoError(t, os.WriteFile(filepath.Join(target, "written"), []byte("by the pod"), 0o600))
	assert.FileExists(t, filepath.Join(volDir, "written"), "writes must land in the volume")
	_, mounts, err := findMount(target)
	require.NoError(t, err)
	assert.True(t, mounts)

	stats, err := d.NodeGetVolumeStats(ctx, &csi.NodeGetVolumeStatsRequest{VolumeId: "pvc-1", VolumePath: target})
	require.NoError(t, err)
	require.Len(t, stats.GetUsage(), 2)
	assert.Positive(t, stats.GetUsage()[0].GetTotal())

	for range 2 {
		_, err = d.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "pvc-1", TargetPath: target})
		require.NoError(t, err)
	}
	assert.NoDirExists(t, target)
	assert.FileExists(t, filepath.Join(volDir, "written"), "unpublish must keep the data")
}

func TestPublishReadOnly(t *testing.T) {
	requireRoot(t)
	d, base := newTestDriver(t)
	ctx := context.Background()
	_, err := d.CreateVolume(ctx, createRequest("pvc-ro", "slow"))
	require.NoError(t, err)
	target := filepath.Join(base, "ro")
	_, err = d.NodePublishVolume(ctx, publishRequest("pvc-ro", target, true))
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = d.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "pvc-ro", TargetPath: target})
	})

	err = os.WriteFile(filepath.Join(target, "nope"), nil, 0o600)
	assert.ErrorIs(t, err, unix.EROFS)
	_, err = d.NodePublishVolume(ctx, publishRequest("pvc-ro", target, false))
	assert.Equal(t, codes.AlreadyExists, status.Code(err), "read-write over read-only: %v", err)
}

func TestNodeErrorsForUnknownVolumes(t *testing.T) {
	d, base := newTestDriver(t)
	ctx := context.Background()
	_, err := d.NodePublishVolume(ctx, publishRequest("missing", filepath.Join(base, "t"), false))
	assert.Equal(t, codes.NotFound, status.Code(err), "%v", err)
	_, err = d.NodeGetVolumeStats(ctx, &csi.NodeGetVolumeStatsRequest{VolumeId: "missing", VolumePath: base})
	assert.Equal(t, codes.NotFound, status.Code(err), "%v", err)

	_, err = d.CreateVolume(ctx, createRequest("pvc-1", "fast"))
	require.NoError(t, err)
	_, err = d.NodeGetVolumeStats(ctx, &csi.NodeGetVolumeStatsRequest{VolumeId: "pvc-1", VolumePath: base})
	assert.Equal(t, codes.NotFound, status.Code(err), "a path that is not the volume: %v", err)
	_, err = d.NodeStageVolume(ctx, &csi.NodeStageVolumeRequest{})
	assert.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
}

func TestUnescapeMountPath(t *testing.T) {
	got, err := unescapeMountPath(`/var/lib/with\040space\134x`)
	require.NoError(t, err)
	assert.Equal(t, `/var/lib/with space\x`, got)
	_, err = unescapeMountPath(`/bad\04`)
	assert.Error(t, err)
}
