package csi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// maxStackedMounts bounds the unmount loop in case something keeps mounting
// over the target while we unpublish.
const maxStackedMounts = 16

// NodeGetInfo reports the node name as node ID and as topology, so volumes
// created here are only scheduled here.
func (d *Driver) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: d.nodeName, AccessibleTopology: d.topology()}, nil
}

// NodeGetCapabilities advertises volume stats. There is no STAGE_UNSTAGE: a
// directory needs no per-node preparation before it is bind-mounted.
func (d *Driver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	var caps []*csi.NodeServiceCapability
	for _, t := range []csi.NodeServiceCapability_RPC_Type{
		csi.NodeServiceCapability_RPC_GET_VOLUME_STATS,
		csi.NodeServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER,
	} {
		caps = append(caps, &csi.NodeServiceCapability{Type: &csi.NodeServiceCapability_Rpc{
			Rpc: &csi.NodeServiceCapability_RPC{Type: t},
		}})
	}
	return &csi.NodeGetCapabilitiesResponse{Capabilities: caps}, nil
}

// NodePublishVolume bind-mounts the volume directory at the target path. A
// repeat for the same volume and read-only setting succeeds without a second
// mount.
func (d *Driver) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	id, target := req.GetVolumeId(), req.GetTargetPath()
	if err := checkNodeRequest(id, target); err != nil {
		return nil, err
	}
	if req.GetVolumeCapability() == nil {
		return nil, status.Error(codes.InvalidArgument, "volume capability is required")
	}
	if problem := capabilityProblem(req.GetVolumeCapability()); problem != "" {
		return nil, status.Error(codes.InvalidArgument, problem)
	}
	readOnly := req.GetReadonly() ||
		req.GetVolumeCapability().GetAccessMode().GetMode() == csi.VolumeCapability_AccessMode_SINGLE_NODE_READER_ONLY
	release, err := d.locks.acquire(id)
	if err != nil {
		return nil, err
	}
	defer release()

	src, err := d.volumeDir(id)
	if err != nil {
		return nil, err
	}
	if req.GetVolumeCapability().GetAccessMode().GetMode() == csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER {
		// A single writer means one publication at a time.
		if elsewhere, err := publishedElsewhere(src, target); err != nil {
			return nil, status.Errorf(codes.Internal, "checking where volume %q is published: %v", id, err)
		} else if elsewhere {
			return nil, status.Errorf(codes.FailedPrecondition, "volume %q is single-writer and already published at another target", id)
		}
	}
	if err := publish(src, target, readOnly); err != nil {
		return nil, err
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

// checkNodeRequest validates the fields every publish/unpublish/stats call
// carries.
func checkNodeRequest(id, path string) error {
	if id == "" {
		return status.Error(codes.InvalidArgument, "volume ID is required")
	}
	if path == "" {
		return status.Error(codes.InvalidArgument, "target path is required")
	}
	return nil
}

// volumeDir returns the directory of an existing volume, or NotFound.
func (d *Driver) volumeDir(id string) (string, error) {
	if validateVolumeID(id) != nil {
		return "", status.Errorf(codes.NotFound, "volume %q does not exist", id)
	}
	_, dir, found, err := d.findVolume(id)
	if err != nil {
		return "", status.Errorf(codes.Internal, "looking up volume %q: %v", id, err)
	}
	if !found {
		return "", status.Errorf(codes.NotFound, "volume %q does not exist on node %q", id, d.nodeName)
	}
	return dir, nil
}

// publish makes src visible at target, creating target (the CO creates only
// its parent).
func publish(src, target string, readOnly bool) error {
	if !filepath.IsAbs(target) {
		return status.Errorf(codes.InvalidArgument, "target path %q is not absolute", target)
	}
	if err := os.MkdirAll(target, 0o750); err != nil {
		return status.Errorf(codes.Internal, "creating target path: %v", err)
	}
	canonical, err := filepath.EvalSymlinks(target)
	if err != nil {
		return status.Errorf(codes.Internal, "resolving target path: %v", err)
	}
	m, mounted, err := findMount(canonical)
	if err != nil {
		return status.Errorf(codes.Internal, "publishing at %s: %v", target, err)
	}
	if !mounted {
		if err := bindMount(src, canonical, readOnly); err != nil {
			return status.Errorf(codes.Internal, "publishing volume: %v", err)
		}
		return nil
	}
	same, err := sameFile(src, canonical)
	if err != nil {
		return status.Errorf(codes.Internal, "publishing at %s: %v", target, err)
	}
	if !same {
		return status.Errorf(codes.AlreadyExists, "target path %s already has another volume mounted", target)
	}
	if m.readOnly != readOnly {
		return status.Errorf(codes.AlreadyExists,
			"volume is already published at %s with read-only=%t", target, m.readOnly)
	}
	return nil
}

// sameFile reports whether a and b are the same directory; a bind mount
// keeps the device and inode of its source, so this identifies the volume
// behind a mount point.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", a, err)
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", b, err)
	}
	return os.SameFile(fa, fb), nil
}

// NodeUnpublishVolume unmounts the target path and removes it. A missing
// target counts as already unpublished.
func (d *Driver) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	id, target := req.GetVolumeId(), req.GetTargetPath()
	if err := checkNodeRequest(id, target); err != nil {
		return nil, err
	}
	release, err := d.locks.acquire(id)
	if err != nil {
		return nil, err
	}
	defer release()

	if err := unpublish(target); err != nil {
		return nil, status.Errorf(codes.Internal, "unpublishing volume %q: %v", id, err)
	}
	return &csi.NodeUnpublishVolumeResponse{}, nil
}

// unpublish removes every mount stacked at target, then target itself. The
// directory is removed with Remove, never RemoveAll, so that a mount we failed
// to notice can never cost the volume its data.
func unpublish(target string) error {
	canonical, err := filepath.EvalSymlinks(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("resolving target path: %w", err)
	}
	for range maxStackedMounts {
		_, mounted, err := findMount(canonical)
		if err != nil {
			return err
		}
		if !mounted {
			break
		}
		if err := unmount(canonical); err != nil && !errors.Is(err, syscall.EINVAL) {
			return err // EINVAL: someone else unmounted it meanwhile
		}
	}
	if err := os.Remove(canonical); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing target path: %w", err)
	}
	return nil
}
