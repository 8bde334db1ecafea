package csi

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

func mountCapability(mode csi.VolumeCapability_AccessMode_Mode) *csi.VolumeCapability {
	return &csi.VolumeCapability{
		AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode},
	}
}

func createRequest(name, pool string) *csi.CreateVolumeRequest {
	return &csi.CreateVolumeRequest{
		Name:               name,
		CapacityRange:      &csi.CapacityRange{RequiredBytes: 1 << 20},
		VolumeCapabilities: []*csi.VolumeCapability{mountCapability(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)},
		Parameters:         map[string]string{ParamStoragePool: pool},
	}
}

// volumeDirs lists the volume directories of a pool, hiding our metadata.
func volumeDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if e.Name() != metaDir {
			names = append(names, e.Name())
		}
	}
	return names
}

func TestCreateVolumeTwiceGivesOneDirectory(t *testing.T) {
	d, base := newTestDriver(t)
	ctx := context.Background()

	first, err := d.CreateVolume(ctx, createRequest("pvc-1", "fast"))
	require.NoError(t, err)
	second, err := d.CreateVolume(ctx, createRequest("pvc-1", "fast"))
	require.NoError(t, err)

	assert.True(t, proto.Equal(first, second), "repeat must return the same volume:\n%v\n%v", first, second)
	assert.Equal(t, []string{"pvc-1"}, volumeDirs(t, filepath.Join(base, "fast")))
	assert.Empty(t, volumeDirs(t, filepath.Join(base, "slow")))
	vol := first.GetVolume()
	assert.Equal(t, "pvc-1", vol.GetVolumeId())
	assert.Equal(t, int64(1<<20), vol.GetCapacityBytes())
	assert.Equal(t, map[string]string{
		ContextPath:        filepath.Join(base, "fast", "pvc-1"),
		ContextStoragePool: "fast",
	}, vol.GetVolumeContext())
	require.Len(t, vol.GetAccessibleTopology(), 1)
	assert.Equal(t, map[string]string{TopologyKey: "node-a"}, vol.GetAccessibleTopology()[0].GetSegments())
}

func TestCreateVolumeIncompatibleRepeatIsAlreadyExists(t *testing.T) {
	d, _ := newTestDriver(t)
	ctx := context.Background()
	_, err := d.CreateVolume(ctx, createRequest("pvc-1", "fast"))
	require.NoError(t, err)

	bigger := createRequest("pvc-1", "fast")
	bigger.CapacityRange = &csi.CapacityRange{RequiredBytes: 2 << 20}
	_, err = d.CreateVolume(ctx, bigger)
	assert.Equal(t, codes.AlreadyExists, status.Code(err), "%v", err)

	_, err = d.CreateVolume(ctx, createRequest("pvc-1", "slow"))
	assert.Equal(t, codes.AlreadyExists, status.Code(err), "%v", err)
}

func TestCreateVolumeRefusesUnknownPool(t *testing.T) {
	d, base := newTestDriver(t)
	_, err := d.CreateVolume(context.Background(), createRequest("pvc-1", "nvme"))
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	msg := status.Convert(err).Message()
	assert.Contains(t, msg, `unknown storage pool "nvme"`)
	assert.Contains(t, msg, "fast, slow")
	assert.Empty(t, volumeDirs(t, filepath.Join(base, "fast")))
}

func TestCreateVolumeNeedsPoolOnlyWithSeveralPools(t *testing.T) {
	d, _ := newTestDriver(t)
	_, err := d.CreateVolume(context.Background(), createRequest("pvc-1", ""))
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), ParamStoragePool)

	single, err := NewDriver(Config{NodeName: "n", Pools: map[string]string{"only": filepath.Join(shortTempDir(t), "p")}})
	require.NoError(t, err)
	req := createRequest("pvc-1", "")
	req.Parameters = nil
	resp, err := single.CreateVolume(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "only", resp.GetVolume().GetVolumeContext()[ContextStoragePool])
}

func TestVolumeIDsCannotEscapePool(t *testing.T) {
	d, base := newTestDriver(t)
	ctx := context.Background()
	for _, name := range []string{"..", "../escaped", "a/b", "/abs", ".hidden", metaDir} {
		_, err := d.CreateVolume(ctx, createRequest(name, "fast"))
		assert.Equal(t, codes.InvalidArgument, status.Code(err), "create %q: %v", name, err)
		_, err = d.DeleteVolume(ctx, &csi.DeleteVolumeRequest{VolumeId: name})
		assert.Equal(t, codes.InvalidArgument, status.Code(err), "delete %q: %v", name, err)
	}
	_, err := os.Stat(filepath.Join(base, "escaped"))
	assert.True(t, os.IsNotExist(err), "nothing may be created outside the pools")
}

func TestCreateVolumeRejectsUnsupportedCapabilities(t *testing.T) {
	d, _ := newTestDriver(t)
	block := createRequest("pvc-block", "fast")
	block.VolumeCapabilities = []*csi.VolumeCapability{{
		AccessType: &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
	}}
	_, err := d.CreateVolume(context.Background(), block)
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)

	shared := createRequest("pvc-rwx", "fast")
	shared.VolumeCapabilities = []*csi.VolumeCapability{mountCapability(csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER)}
	_, err = d.CreateVolume(context.Background(), shared)
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
}

func TestCreateVolumeBeyondFreeSpaceIsOutOfRange(t *testing.T) {
	d, _ := newTestDriver(t)
	req := createRequest("pvc-huge", "fast")
	req.CapacityRange = &csi.CapacityRange{RequiredBytes: 1 << 62}
	_, err := d.CreateVolume(context.Background(), req)
	assert.Equal(t, codes.OutOfRange, status.Code(err), "%v", err)
}

func TestDeleteVolumeRemovesContentsAndIsIdempotent(t *testing.T) {
	d, base := newTestDriver(t)
	ctx := context.Background()
	resp, err := d.CreateVolume(ctx, createRequest("pvc-1", "slow"))
	require.NoError(t, err)
	dir := resp.GetVolume().GetVolumeContext()[ContextPath]
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data"), []byte("x"), 0o600))

	for range 2 {
		_, err = d.DeleteVolume(ctx, &csi.DeleteVolumeRequest{VolumeId: "pvc-1"})
		require.NoError(t, err)
	}
	assert.Empty(t, volumeDirs(t, filepath.Join(base, "slow")))
	_, err = os.Stat(metaPath(filepath.Join(base, "slow"), "pvc-1"))
	assert.True(t, os.IsNotExist(err), "metadata must go with the volume")
}

func TestListVolumesPages(t *testing.T) {
	d, _ := newTestDriver(t)
	ctx := context.Background()
	for _, name := range []string{"c", "a", "b"} {
		pool := map[string]string{"a": "fast", "b": "slow", "c": "fast"}[name]
		_, err := d.CreateVolume(ctx, createRequest(name, pool))
		require.NoError(t, err)
	}
	var ids []string
	token := ""
	for {
		resp, err := d.ListVolumes(ctx, &csi.ListVolumesRequest{MaxEntries: 2, StartingToken: token})
		require.NoError(t, err)
		for _, e := range resp.GetEntries() {
			ids = append(ids, e.GetVolume().GetVolumeId())
		}
		if token = resp.GetNextToken(); token == "" {
			break
		}
	}
	assert.Equal(t, []string{"a", "b", "c"}, ids)

	_, err := d.ListVolumes(ctx, &csi.ListVolumesRequest{StartingToken: "bogus"})
	assert.Equal(t, codes.Aborted, status.Code(err), "%v", err)
}

func TestNewDriverValidatesConfig(t *testing.T) {
	dir := shortTempDir(t)
	for name, cfg := range map[string]Config{
		"no node name":  {Pools: map[string]string{"p": dir}},
		"no pools":      {NodeName: "n"},
		"relative path": {NodeName: "n", Pools: map[string]string{"p": "relative/dir"}},
		"root as pool":  {NodeName: "n", Pools: map[string]string{"p": "/"}},
		"unnamed pool":  {NodeName: "n", Pools: map[string]string{"": dir}},
	} {
		_, err := NewDriver(cfg)
		assert.Error(t, err, name)
	}

	_, err := NewDriver(Config{NodeName: "n", Pools: map[string]string{"p": filepath.Join(dir, "new", "pool")}})
	require.NoError(t, err)
	assert.DirExists(t, filepath.Join(dir, "new", "pool"))
}
