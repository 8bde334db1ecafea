package csi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// metaDir is the per-pool directory holding what a bare directory cannot
// tell us about a volume (its provisioned capacity). Its leading dot keeps it
// out of the volume namespace, because volume names may not start with a dot.
const metaDir = ".csi-volumes"

// maxVolumeIDLen leaves room for the metadata file suffix within the 255
// byte file name limit of common Linux filesystems.
const maxVolumeIDLen = 240

// volumeMeta is persisted next to each volume so repeated CreateVolume calls
// can be checked against the original request.
type volumeMeta struct {
	CapacityBytes int64 `json:"capacityBytes"`
}

// validateVolumeID keeps volume IDs (which are also directory names) from
// escaping their pool or colliding with the metadata directory.
func validateVolumeID(id string) error {
	switch {
	case id == "":
		return status.Error(codes.InvalidArgument, "volume ID/name is required")
	case len(id) > maxVolumeIDLen:
		return status.Errorf(codes.InvalidArgument, "volume name %q is longer than %d bytes", id, maxVolumeIDLen)
	case strings.ContainsAny(id, "/\x00"):
		return status.Errorf(codes.InvalidArgument, "volume name %q must not contain '/' or NUL", id)
	case strings.HasPrefix(id, "."):
		return status.Errorf(codes.InvalidArgument, "volume name %q must not start with '.' (no '..', no hidden names)", id)
	}
	return nil
}

// selectPool resolves the storagePool parameter; with a single pool the
// parameter is optional because there is nothing to choose.
func (d *Driver) selectPool(params map[string]string) (name, dir string, err error) {
	name, set := params[ParamStoragePool]
	if !set || name == "" {
		if len(d.poolNames) == 1 {
			name = d.poolNames[0]
			return name, d.pools[name], nil
		}
		return "", "", status.Errorf(codes.InvalidArgument,
			"parameter %q is required: this node has %d storage pools (%s)",
			ParamStoragePool, len(d.poolNames), strings.Join(d.poolNames, ", "))
	}
	dir, ok := d.pools[name]
	if !ok {
		return "", "", status.Errorf(codes.InvalidArgument,
			"unknown storage pool %q: this node has storage pools %s",
			name, strings.Join(d.poolNames, ", "))
	}
	return name, dir, nil
}

// findVolume returns the pool and directory of an existing volume. Volume IDs
// do not name their pool, so every pool is searched; names are unique across
// pools because CreateVolume refuses a name that exists in another pool.
func (d *Driver) findVolume(id string) (pool, dir string, found bool, err error) {
	for _, name := range d.poolNames {
		candidate := filepath.Join(d.pools[name], id)
		fi, err := os.Lstat(candidate)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", "", false, fmt.Errorf("looking up volume %q in pool %q: %w", id, name, err)
		}
		if !fi.IsDir() {
			return "", "", false, fmt.Errorf("volume %q in pool %q is not a directory", id, name)
		}
		return name, candidate, true, nil
	}
	return "", "", false, nil
}

func metaPath(poolDir, id string) string {
	return filepath.Join(poolDir, metaDir, id+".json")
}

// readMeta reports found=false for volumes without metadata, such as
// directories created by hand or by an older provisioner.
func readMeta(poolDir, id string) (meta volumeMeta, found bool, err error) {
	data, err := os.ReadFile(metaPath(poolDir, id))
	if errors.Is(err, fs.ErrNotExist) {
		return volumeMeta{}, false, nil
	}
	if err != nil {
		return volumeMeta{}, false, fmt.Errorf("reading metadata of volume %q: %w", id, err)
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return volumeMeta{}, false, fmt.Errorf("parsing metadata of volume %q: %w", id, err)
	}
	return meta, true, nil
}

// writeMeta replaces the metadata atomically, so a crash never leaves a
// half-written file that would make the volume unreadable.
func writeMeta(poolDir, id string, meta volumeMeta) error {
	data, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("encoding metadata of volume %q: %w", id, err)
	}
	dir := filepath.Join(poolDir, metaDir)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("creating metadata directory of pool %s: %w", poolDir, err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing metadata of volume %q: %w", id, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing metadata of volume %q: %w", id, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing metadata of volume %q: %w", id, err)
	}
	if err := os.Rename(tmp.Name(), metaPath(poolDir, id)); err != nil {
		return fmt.Errorf("storing metadata of volume %q: %w", id, err)
	}
	return nil
}

func removeMeta(poolDir, id string) error {
	err := os.Remove(metaPath(poolDir, id))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing metadata of volume %q: %w", id, err)
	}
	return nil
}

// freeBytes is what an unprivileged writer can still store under dir; volumes
// are plain directories, so the filesystem's free space is their only limit.
func freeBytes(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return int64(st.Bavail) * st.Bsize, nil
}

// volumeLocks serialises operations per volume ID. A second concurrent call
// gets Aborted, which the CSI spec reserves for exactly this case, and the
// sidecars retry it.
type volumeLocks struct {
	mu   sync.Mutex
	busy map[string]struct{}
}

func newVolumeLocks() *volumeLocks {
	return &volumeLocks{busy: make(map[string]struct{})}
}

// acquire returns a release function, or an Aborted error if an operation on
// id is already running.
func (l *volumeLocks) acquire(id string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.busy[id]; ok {
		return nil, status.Errorf(codes.Aborted, "an operation on volume %q is already in progress", id)
	}
	l.busy[id] = struct{}{}
	return func() {
		l.mu.Lock()
		delete(l.busy, id)
		l.mu.Unlock()
	}, nil
}
