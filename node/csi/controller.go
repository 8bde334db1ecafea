package csi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// volumeDirMode lets the pod's group (fsGroup) write, and others only
// traverse: a guest's qemu runs as an unprivileged user and opens the disk
// image inside, which its launcher hands to that user.
const volumeDirMode os.FileMode = 0o771

// ControllerGetCapabilities advertises volume creation, capacity and listing.
// SINGLE_NODE_MULTI_WRITER is advertised because the spec requires it before
// a CO may use the SINGLE_NODE_{SINGLE,MULTI}_WRITER modes we accept.
func (d *Driver) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	var caps []*csi.ControllerServiceCapability
	for _, t := range []csi.ControllerServiceCapability_RPC_Type{
		csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME,
		csi.ControllerServiceCapability_RPC_GET_CAPACITY,
		csi.ControllerServiceCapability_RPC_LIST_VOLUMES,
		csi.ControllerServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER,
	} {
		caps = append(caps, &csi.ControllerServiceCapability{Type: &csi.ControllerServiceCapability_Rpc{
			Rpc: &csi.ControllerServiceCapability_RPC{Type: t},
		}})
	}
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: caps}, nil
}

// CreateVolume creates the volume directory in the selected pool. It is
// idempotent by name: a repeat with a compatible request returns the same
// volume, an incompatible one AlreadyExists.
func (d *Driver) CreateVolume(_ context.Context, req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	name := req.GetName()
	if err := validateVolumeID(name); err != nil {
		return nil, err
	}
	if err := checkCapabilities(req.GetVolumeCapabilities()); err != nil {
		return nil, err
	}
	required, limit, err := capacityBounds(req.GetCapacityRange())
	if err != nil {
		return nil, err
	}
	pool, poolDir, err := d.selectPool(req.GetParameters())
	if err != nil {
		return nil, err
	}
	if !d.satisfiesAccessibility(req.GetAccessibilityRequirements()) {
		return nil, status.Errorf(codes.ResourceExhausted,
			"volume %q cannot be placed: the accessibility requirements exclude node %q", name, d.nodeName)
	}
	release, err := d.locks.acquire(name)
	if err != nil {
		return nil, err
	}
	defer release()

	existingPool, dir, found, err := d.findVolume(name)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "creating volume %q: %v", name, err)
	}
	if found {
		return d.adoptExisting(name, pool, existingPool, dir, required, limit)
	}
	return d.createNew(name, pool, poolDir, required)
}

// capacityBounds validates the capacity range; zero means "not set" for
// either bound, as in the spec.
func capacityBounds(r *csi.CapacityRange) (required, limit int64, err error) {
	required, limit = r.GetRequiredBytes(), r.GetLimitBytes()
	if required < 0 || limit < 0 {
		return 0, 0, status.Error(codes.InvalidArgument, "capacity range bounds must not be negative")
	}
	if limit > 0 && required > limit {
		return 0, 0, status.Errorf(codes.InvalidArgument,
			"capacity range is empty: required %d bytes exceeds the limit of %d bytes", required, limit)
	}
	return required, limit, nil
}

// satisfiesAccessibility reports whether this node is allowed by the
// requirements. Volumes can only ever live on the node that serves them, so
// the only question is whether that node is acceptable.
func (d *Driver) satisfiesAccessibility(req *csi.TopologyRequirement) bool {
	if len(req.GetRequisite()) == 0 {
		// Preferred alone is a wish, not a constraint, and the spec makes
		// preferred a subset of requisite whenever both are set.
		return true
	}
	for _, t := range req.GetRequisite() {
		if t.GetSegments()[TopologyKey] == d.nodeName {
			return true
		}
	}
	return false
}

// adoptExisting answers a repeated CreateVolume for a volume that already
// exists.
func (d *Driver) adoptExisting(name, pool, existingPool, dir string, required, limit int64) (*csi.CreateVolumeResponse, error) {
	if existingPool != pool {
		return nil, status.Errorf(codes.AlreadyExists,
			"volume %q already exists in storage pool %q, not in the requested pool %q", name, existingPool, pool)
	}
	poolDir := d.pools[pool]
	meta, known, err := readMeta(poolDir, name)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "creating volume %q: %v", name, err)
	}
	if !known {
		// A directory without metadata was made outside this driver (or the
		// metadata was lost); take it over with the size asked for now.
		meta = volumeMeta{CapacityBytes: required}
		if err := writeMeta(poolDir, name, meta); err != nil {
			return nil, status.Errorf(codes.Internal, "adopting volume %q: %v", name, err)
		}
	}
	if meta.CapacityBytes < required || (limit > 0 && meta.CapacityBytes > limit) {
		return nil, status.Errorf(codes.AlreadyExists,
			"volume %q already exists with capacity %d bytes, outside the requested range [%d, %d]",
			name, meta.CapacityBytes, required, limit)
	}
	return &csi.CreateVolumeResponse{Volume: d.volume(name, pool, dir, meta.CapacityBytes)}, nil
}

// createNew makes the volume directory. Metadata is written first so that a
// directory without metadata always means "not made by us".
func (d *Driver) createNew(name, pool, poolDir string, required int64) (*csi.CreateVolumeResponse, error) {
	free, err := freeBytes(poolDir)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "creating volume %q: %v", name, err)
	}
	if required > free {
		return nil, status.Errorf(codes.OutOfRange,
			"volume %q needs %d bytes but storage pool %q has only %d bytes free", name, required, pool, free)
	}
	if err := writeMeta(poolDir, name, volumeMeta{CapacityBytes: required}); err != nil {
		return nil, status.Errorf(codes.Internal, "creating volume %q: %v", name, err)
	}
	dir := filepath.Join(poolDir, name)
	if err := makeVolumeDir(dir); err != nil {
		return nil, status.Errorf(codes.Internal, "creating volume %q: %v", name, err)
	}
	return &csi.CreateVolumeResponse{Volume: d.volume(name, pool, dir, required)}, nil
}

// makeVolumeDir sets the mode explicitly because Mkdir's is masked by the
// process umask.
func makeVolumeDir(dir string) error {
	if err := os.Mkdir(dir, volumeDirMode); err != nil && !os.IsExist(err) {
		return fmt.Errorf("creating directory %s: %w", dir, err)
	}
	if err := os.Chmod(dir, volumeDirMode); err != nil {
		return fmt.Errorf("setting mode of %s: %w", dir, err)
	}
	return nil
}

// volume describes a volume the same way in CreateVolume and ListVolumes.
func (d *Driver) volume(name, pool, dir string, capacity int64) *csi.Volume {
	return &csi.Volume{
		VolumeId:           name,
		CapacityBytes:      capacity,
		VolumeContext:      map[string]string{ContextPath: dir, ContextStoragePool: pool},
		AccessibleTopology: []*csi.Topology{d.topology()},
	}
}

// DeleteVolume removes the volume directory and everything in it. Unknown
// volumes count as already deleted, as the spec requires.
func (d *Driver) DeleteVolume(_ context.Context, req *csi.DeleteVolumeRequest) (*csi.DeleteVolumeResponse, error) {
	id := req.GetVolumeId()
	if err := validateVolumeID(id); err != nil {
		return nil, err
	}
	release, err := d.locks.acquire(id)
	if err != nil {
		return nil, err
	}
	defer release()

	pool, dir, found, err := d.findVolume(id)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "deleting volume %q: %v", id, err)
	}
	if found {
		if err := os.RemoveAll(dir); err != nil {
			return nil, status.Errorf(codes.Internal, "deleting volume %q from pool %q: %v", id, pool, err)
		}
	}
	// Metadata may outlive its directory after a crash during create or
	// delete; drop it from every pool so a later create starts clean.
	for _, name := range d.poolNames {
		if err := removeMeta(d.pools[name], id); err != nil {
			return nil, status.Errorf(codes.Internal, "deleting volume %q: %v", id, err)
		}
	}
	return &csi.DeleteVolumeResponse{}, nil
}

// ValidateVolumeCapabilities confirms the capabilities only if every one of
// them is supported; unsupported ones are reported, not failed, per spec.
func (d *Driver) ValidateVolumeCapabilities(_ context.Context, req *csi.ValidateVolumeCapabilitiesRequest) (*csi.ValidateVolumeCapabilitiesResponse, error) {
	id := req.GetVolumeId()
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "volume ID is required")
	}
	if len(req.GetVolumeCapabilities()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "volume capabilities are required")
	}
	pool, found, err := d.lookupVolume(id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, status.Errorf(codes.NotFound, "volume %q does not exist", id)
	}
	if want, set := req.GetParameters()[ParamStoragePool]; set && want != pool {
		return &csi.ValidateVolumeCapabilitiesResponse{
			Message: fmt.Sprintf("volume %q is in storage pool %q, not %q", id, pool, want),
		}, nil
	}
	for _, c := range req.GetVolumeCapabilities() {
		if problem := capabilityProblem(c); problem != "" {
			return &csi.ValidateVolumeCapabilitiesResponse{Message: problem}, nil
		}
	}
	return &csi.ValidateVolumeCapabilitiesResponse{Confirmed: &csi.ValidateVolumeCapabilitiesResponse_Confirmed{
		VolumeContext:      req.GetVolumeContext(),
		VolumeCapabilities: req.GetVolumeCapabilities(),
		Parameters:         req.GetParameters(),
	}}, nil
}

// lookupVolume finds a volume for read-only RPCs, where an ID that could
// never have been created simply does not exist.
func (d *Driver) lookupVolume(id string) (pool string, found bool, err error) {
	if validateVolumeID(id) != nil {
		return "", false, nil
	}
	pool, _, found, err = d.findVolume(id)
	if err != nil {
		return "", false, status.Errorf(codes.Internal, "looking up volume %q: %v", id, err)
	}
	return pool, found, nil
}
