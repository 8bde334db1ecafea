package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/activity"
	"golang.org/x/sys/unix"
)

// CloneDiskName is the host-assisted clone activity, on the node that
// holds both volumes.
const CloneDiskName = "storage.CloneDisk"

// CloneRequest copies one volume's disk into another on the same node.
type CloneRequest struct {
	// SourceDir and VolumeDir are the source's and the target's
	// directories on the node.
	SourceDir string `json:"sourceDir"`
	VolumeDir string `json:"volumeDir"`
	// Size is the target disk's usable size; it is never smaller than the
	// source's.
	Size int64  `json:"size"`
	Key  string `json:"key"`
}

// CloneDisk copies the source disk into the target: as a reflink where the
// filesystem shares extents (instant, no data moved), else as a sparse,
// resumable chunked copy (holes stay holes; a retry resumes from the last
// checkpoint).
func (a *Activities) CloneDisk(ctx context.Context, req CloneRequest) (ImportResult, error) {
	src := filepath.Join(req.SourceDir, DiskFileName)
	dst := filepath.Join(req.VolumeDir, DiskFileName)
	st, err := os.Stat(src)
	if err != nil {
		return ImportResult{}, fmt.Errorf("reading clone source %s: %w", src, err)
	}
	if req.Size > 0 && st.Size() > req.Size {
		return ImportResult{}, fatal(fmt.Errorf("%w: target size %d is smaller than the source's %d", ErrTargetTooSmall, req.Size, st.Size()),
			ErrTargetTooSmall, ErrTypeTargetTooSmall)
	}
	var last ImportProgress
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &last)
	}
	if last.Offset == 0 && reflink(src, dst) == nil {
		return ImportResult{Format: "raw", VirtualSize: st.Size()}, GrowRaw(ctx, dst, req.Size)
	}
	hb := newHeartbeater(ctx, last.Offset)
	defer hb.stop()
	err = CopyResumable(ctx, FileNode(src), "raw", st.Size(), dst, CopyOptions{
		Cache: CacheModeFor(req.VolumeDir), From: last.Offset, Checkpoint: hb.checkpoint,
		Progress: func(done int64) { hb.progress(100 * float64(done) / float64(max(st.Size(), 1))) },
	})
	if ctx.Err() != nil {
		return ImportResult{}, ctx.Err()
	}
	if err != nil {
		return ImportResult{}, err
	}
	if err := syncFile(dst); err != nil {
		return ImportResult{}, err
	}
	return ImportResult{Format: "raw", VirtualSize: st.Size(), ResumedFrom: last.Offset}, GrowRaw(ctx, dst, req.Size)
}

// reflink clones src into a new dst sharing its extents (FICLONE).
func reflink(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o660)
	if err != nil {
		return err
	}
	err = unix.IoctlFileClone(int(out.Fd()), int(in.Fd()))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(dst)
		return errors.Join(errors.New("reflink not supported here"), err)
	}
	return nil
}
