package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/activity"
	"golang.org/x/sys/unix"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// CloneDisk copies the source disk into the target: as a reflink where the
// filesystem shares extents (instant, no data moved), else as a sparse,
// resumable chunked copy (holes stay holes; a retry resumes from the last
// checkpoint). It reports the attempt's progress to its workflow.
func (a *Activities) CloneDisk(ctx context.Context, req cdi.CloneRequest) (res cdi.ImportResult, err error) {
	rep := a.reporter(ctx, cdi.CloneDiskName)
	rep.start(ctx, "")
	defer func() { rep.end(ctx, err) }()
	return a.cloneDisk(ctx, req, rep)
}

// cloneDisk reflinks or copies the source disk into the target, both
// found from the cluster: the target DataVolume's claim and the source its
// spec names, once its namespace is found allowed to clone it.
func (a *Activities) cloneDisk(ctx context.Context, req cdi.CloneRequest, rep *reporter) (cdi.ImportResult, error) {
	t, err := a.resolveTarget(ctx, fillClone, request{namespace: req.Namespace, claim: req.Claim, key: req.Key, dir: req.VolumeDir, size: req.Size})
	if err != nil {
		return cdi.ImportResult{}, err
	}
	if req.SourceDir, err = a.cloneSource(ctx, t, req.SourceDir); err != nil {
		return cdi.ImportResult{}, err
	}
	req.VolumeDir = t.dir
	src := filepath.Join(req.SourceDir, cdi.DiskFileName)
	dst := filepath.Join(req.VolumeDir, cdi.DiskFileName)
	st, err := os.Stat(src)
	if err != nil {
		return cdi.ImportResult{}, fmt.Errorf("reading clone source %s: %w", src, err)
	}
	if req.Size > 0 && st.Size() > req.Size {
		return cdi.ImportResult{}, fatal(fmt.Errorf("%w: target size %d is smaller than the source's %d", ErrTargetTooSmall, req.Size, st.Size()),
			ErrTargetTooSmall, cdi.ErrTypeTargetTooSmall)
	}
	var last checkpoint
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &last)
	}
	if last.Offset == 0 && reflink(src, dst) == nil {
		return cdi.ImportResult{Format: "raw", VirtualSize: st.Size()}, GrowRaw(ctx, dst, req.Size)
	}
	hb := newHeartbeater(ctx, last.Offset, rep)
	defer hb.stop()
	err = CopyResumable(ctx, FileNode(src), "raw", st.Size(), dst, CopyOptions{
		Cache: CacheModeFor(req.VolumeDir), From: last.Offset, Checkpoint: hb.checkpoint,
		Progress: func(done int64) { hb.progress(100 * float64(done) / float64(max(st.Size(), 1))) },
	})
	if ctx.Err() != nil {
		return cdi.ImportResult{}, ctx.Err()
	}
	if err != nil {
		return cdi.ImportResult{}, err
	}
	if err := GrowRaw(ctx, dst, req.Size); err != nil {
		return cdi.ImportResult{}, err
	}
	return cdi.ImportResult{Format: "raw", VirtualSize: st.Size(), ResumedFrom: last.Offset}, a.finishDisk(dst)
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
