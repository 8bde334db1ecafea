package csi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// tokenPrefix marks our pagination tokens so garbage is told apart from a
// volume name and refused with Aborted, as the spec asks.
const tokenPrefix = "after:"

// listedVolume is one volume found while listing the pools.
type listedVolume struct {
	id, pool, dir string
}

// ListVolumes lists the volumes of all pools sorted by ID. The token carries
// the last ID of the previous page rather than an offset, so volumes deleted
// between pages do not shift later ones out of the listing.
func (d *Driver) ListVolumes(_ context.Context, req *csi.ListVolumesRequest) (*csi.ListVolumesResponse, error) {
	if req.GetMaxEntries() < 0 {
		return nil, status.Error(codes.InvalidArgument, "max_entries must not be negative")
	}
	after, err := parseToken(req.GetStartingToken())
	if err != nil {
		return nil, err
	}
	all, err := d.listVolumes()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "listing volumes: %v", err)
	}
	start := sort.Search(len(all), func(i int) bool { return all[i].id > after })
	page := all[start:]
	next := ""
	if n := int(req.GetMaxEntries()); n > 0 && len(page) > n {
		page = page[:n]
		next = tokenPrefix + page[n-1].id
	}
	entries := make([]*csi.ListVolumesResponse_Entry, 0, len(page))
	for _, v := range page {
		entry, err := d.listEntry(v)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "listing volumes: %v", err)
		}
		entries = append(entries, entry)
	}
	return &csi.ListVolumesResponse{Entries: entries, NextToken: next}, nil
}

// parseToken returns the ID after which listing resumes ("" for the start).
func parseToken(token string) (string, error) {
	if token == "" {
		return "", nil
	}
	after, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok || validateVolumeID(after) != nil {
		return "", status.Errorf(codes.Aborted, "invalid starting_token %q", token)
	}
	return after, nil
}

// listVolumes reads every pool; hidden entries (our metadata) and anything
// that is not a directory are not volumes.
func (d *Driver) listVolumes() ([]listedVolume, error) {
	var all []listedVolume
	for _, pool := range d.poolNames {
		dir := d.pools[pool]
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("reading storage pool %q: %w", pool, err)
		}
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			all = append(all, listedVolume{id: e.Name(), pool: pool, dir: filepath.Join(dir, e.Name())})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	return all, nil
}

func (d *Driver) listEntry(v listedVolume) (*csi.ListVolumesResponse_Entry, error) {
	meta, _, err := readMeta(d.pools[v.pool], v.id)
	if err != nil {
		return nil, err
	}
	return &csi.ListVolumesResponse_Entry{Volume: d.volume(v.id, v.pool, v.dir, meta.CapacityBytes)}, nil
}

// GetCapacity reports the free space of the pool named by the storagePool
// parameter. Without it, the largest free space of any pool is reported: that
// is the biggest volume this node could still hold.
func (d *Driver) GetCapacity(_ context.Context, req *csi.GetCapacityRequest) (*csi.GetCapacityResponse, error) {
	for _, c := range req.GetVolumeCapabilities() {
		if capabilityProblem(c) != "" {
			return &csi.GetCapacityResponse{}, nil
		}
	}
	if t := req.GetAccessibleTopology(); t != nil && t.GetSegments()[TopologyKey] != d.nodeName {
		return &csi.GetCapacityResponse{}, nil // no pool of ours is there
	}
	pools := d.poolNames
	if _, set := req.GetParameters()[ParamStoragePool]; set || len(pools) == 1 {
		pool, _, err := d.selectPool(req.GetParameters())
		if err != nil {
			return nil, err
		}
		pools = []string{pool}
	}
	var largest int64
	for _, pool := range pools {
		free, err := freeBytes(d.pools[pool])
		if err != nil {
			return nil, status.Errorf(codes.Internal, "getting capacity of storage pool %q: %v", pool, err)
		}
		largest = max(largest, free)
	}
	return &csi.GetCapacityResponse{AvailableCapacity: largest}, nil
}
