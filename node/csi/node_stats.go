package csi

import (
	"context"
	"errors"
	"io/fs"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// NodeGetVolumeStats reports usage of the filesystem behind the volume path.
// A directory has no size of its own, so these are the pool filesystem's
// numbers, which is what actually limits the volume.
func (d *Driver) NodeGetVolumeStats(_ context.Context, req *csi.NodeGetVolumeStatsRequest) (*csi.NodeGetVolumeStatsResponse, error) {
	id, path := req.GetVolumeId(), req.GetVolumePath()
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "volume ID is required")
	}
	if path == "" {
		return nil, status.Error(codes.InvalidArgument, "volume path is required")
	}
	dir, err := d.volumeDir(id)
	if err != nil {
		return nil, err
	}
	same, err := sameFile(dir, path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !same) {
		return nil, status.Errorf(codes.NotFound, "volume %q is not available at %s", id, path)
	}
	if err != nil {
		return nil, status.Errorf(codes.Internal, "checking volume %q at %s: %v", id, path, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return nil, status.Errorf(codes.Internal, "statfs of volume %q at %s: %v", id, path, err)
	}
	return &csi.NodeGetVolumeStatsResponse{Usage: []*csi.VolumeUsage{
		{
			Unit:      csi.VolumeUsage_BYTES,
			Total:     int64(st.Blocks) * st.Bsize,
			Available: int64(st.Bavail) * st.Bsize,
			Used:      int64(st.Blocks-st.Bfree) * st.Bsize,
		},
		{
			Unit:      csi.VolumeUsage_INODES,
			Total:     int64(st.Files),
			Available: int64(st.Ffree),
			Used:      int64(st.Files - st.Ffree),
		},
	}}, nil
}
