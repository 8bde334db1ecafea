package storage

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/virtflow/virtflow/kube/mtls"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/typed"
)

// heartbeatEvery is how often a copy heartbeats its checkpoint and hands
// its percentage to the attempt's reporter.
const (
	heartbeatEvery   = 2 * time.Second
	scratchDirPrefix = "virtflow-import-"
)

// Activities are CDI's node-local disk activities. They trust nothing of
// their input that decides what they write or read: each finds its volume
// (and a clone its source) from the cluster and refuses a request the
// cluster does not bear out.
type Activities struct {
	// Client reads the claims, volumes, DataVolumes and import sources
	// the activities check their input against, and the secrets and
	// config maps a source refers to.
	Client client.Client
	// NodeName is this node: a volume the activities touch must be
	// pinned to it.
	NodeName string
	// HostRoot is the node's hostpath root, the prefix of every storage
	// pool's path ("/" when empty): a volume's directory must lie under it.
	HostRoot string
	// NodeIP is where this node's upload servers listen (127.0.0.1 when
	// empty).
	NodeIP string
	// UploadKey is cdi-apiserver's token verification key: an upload
	// server writes only an upload whose token it verifies and names its
	// DataVolume. Without it (or when it fails) no upload is taken.
	UploadKey func() (ed25519.PublicKey, error)
	// UploadTLS, when set, has the upload servers take only clients of
	// its CA (cdi-uploadproxy). virt-handler always sets it; only simulated
	// nodes of one test process go without.
	UploadTLS *mtls.Files
	// DiskUID and DiskGID own every finished disk image, as CDI's
	// importer (running as qemu) leaves its images, so the launchers'
	// user, or a libguestfs pod of it, opens them as they are; 0 leaves
	// them to whoever wrote them.
	DiskUID, DiskGID int
	// Signals reports each attempt's progress to its own workflow
	// (cdi.ProgressSignal), where the reconcilers read it from the memo;
	// nil reports nothing.
	Signals typed.Signaller
	// executionID is the workflow the running activity belongs to; tests
	// replace it.
	executionID func(context.Context) string
}

var _ cdi.DiskActivities = (*Activities)(nil)

// checkpoint is heartbeated: Offset is where a retry resumes.
type checkpoint struct {
	Offset      int64   `json:"offset"`
	Percent     float64 `json:"percent"`
	ResumedFrom int64   `json:"resumedFrom,omitempty"`
	// Stalls counts the attempts in a row that stalled without getting
	// past StalledAt, where the last of them stalled.
	Stalls    int   `json:"stalls,omitempty"`
	StalledAt int64 `json:"stalledAt,omitempty"`
}

// ImportDisk fills the volume's disk from its source, heartbeating a
// checkpoint so that a retry after a crash resumes where the last one left
// off, and reporting the attempt's progress to its workflow.
func (a *Activities) ImportDisk(ctx context.Context, req cdi.ImportRequest) (res cdi.ImportResult, err error) {
	rep := a.reporter(ctx, cdi.ImportDiskName)
	rep.start(ctx, "")
	defer func() { rep.end(ctx, err) }()
	t, err := a.resolveTarget(ctx, fillImport, requestOf(req))
	if err != nil {
		return cdi.ImportResult{}, err
	}
	if req.Source, err = a.checkImportSource(ctx, t, req); err != nil {
		return cdi.ImportResult{}, err
	}
	req.VolumeDir = t.dir
	disk := filepath.Join(req.VolumeDir, cdi.DiskFileName)
	if req.Blank {
		if err := ensureSize(disk, req.Size); err != nil {
			return cdi.ImportResult{}, err
		}
		return cdi.ImportResult{Format: "raw", VirtualSize: req.Size}, a.finishDisk(disk)
	}
	return a.importDisk(ctx, req, disk, rep)
}

// importDisk copies the source into disk, resuming from the last
// checkpoint a failed attempt heartbeated.
func (a *Activities) importDisk(ctx context.Context, req cdi.ImportRequest, disk string, rep *reporter) (cdi.ImportResult, error) {
	var last checkpoint
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &last)
	}
	hb := newHeartbeater(ctx, last.Offset, rep)
	hb.carryStalls(last)
	defer hb.stop()
	info, err := a.importSource(ctx, req, disk, ImportOptions{
		Cache: CacheModeFor(req.VolumeDir), Size: req.Size, From: last.Offset, StallTimeout: req.StallTimeout,
		Checkpoint: hb.checkpoint, Progress: hb.progress, ScratchDir: ScratchDir(req.Key),
	})
	if ctx.Err() != nil {
		// Cancelled: say so, rather than how the killed qemu-img died.
		return cdi.ImportResult{}, ctx.Err()
	}
	var stall *StallError
	if errors.As(err, &stall) {
		return cdi.ImportResult{}, hb.stalled(ctx, stall, req.Source.URL)
	}
	if err != nil {
		return cdi.ImportResult{}, classify(err)
	}
	if err := a.finishDisk(disk); err != nil {
		return cdi.ImportResult{}, err
	}
	return cdi.ImportResult{Format: info.Format, VirtualSize: info.VirtualSize, ResumedFrom: last.Offset}, nil
}

// importSource reads an http(s) source in place; a registry image's disk
// is pulled into the volume's scratch directory first (a layer is a
// stream, not random access), once: a retry reuses a complete pull.
func (a *Activities) importSource(ctx context.Context, req cdi.ImportRequest, disk string, opts ImportOptions) (ImageInfo, error) {
	src, err := a.source(ctx, req)
	if err != nil {
		return ImageInfo{}, err
	}
	if !req.Source.Registry {
		return Import(ctx, src, disk, opts)
	}
	dir := volumeScratch(req.VolumeDir)
	done := filepath.Join(dir, "pulled")
	path, err := os.ReadFile(done)
	if err != nil {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return ImageInfo{}, fmt.Errorf("creating scratch directory: %w", err)
		}
		rs := RegistrySource{URL: src.URL, CACert: src.CACert, Username: src.Username, Password: src.Password, Insecure: req.Source.Insecure}
		p, _, err := FetchRegistryDisk(ctx, rs, dir)
		if err != nil {
			return ImageInfo{}, err
		}
		if err := os.WriteFile(done, []byte(p), 0o600); err != nil {
			return ImageInfo{}, fmt.Errorf("recording the pulled disk: %w", err)
		}
		path = []byte(p)
	}
	return ImportFile(ctx, string(path), disk, opts)
}

// volumeScratch holds files an import needs beside the disk, on the
// volume's own filesystem (a pulled registry disk can be large).
func volumeScratch(volumeDir string) string { return filepath.Join(volumeDir, ".virtflow-scratch") }

// CleanupImport removes the import's scratch directory and notes on the
// claim (an upload server's, and those earlier builds wrote) and, when the
// import did not finish (it was cancelled), its partial disk.
func (a *Activities) CleanupImport(ctx context.Context, req cdi.ImportRequest, removeDisk bool) error {
	t, err := a.resolveTarget(ctx, fillAny, requestOf(req))
	if err != nil {
		return err
	}
	req.VolumeDir = t.dir
	a.claimNotes(req.Namespace, req.Claim).clear(ctx)
	for _, dir := range []string{ScratchDir(req.Key), volumeScratch(req.VolumeDir)} {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("removing scratch directory %s: %w", dir, err)
		}
	}
	if removeDisk {
		if err := os.Remove(filepath.Join(req.VolumeDir, cdi.DiskFileName)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing partial disk in %s: %w", req.VolumeDir, err)
		}
	}
	return nil
}

// ScratchDir is where an import keeps nbdkit's socket and temporary files:
// short, for the socket path limit, and named by key so a retry reuses it.
func ScratchDir(key string) string {
	if len(key) > 12 {
		key = key[:12]
	}
	return filepath.Join(os.TempDir(), scratchDirPrefix+key)
}

// classify turns what can never succeed into non-retryable errors with a
// type name and the user-facing message (without the sentinel's prefix);
// the rest is retried (a source that is down may come back).
func classify(err error) error {
	var hs *httpStatusError
	switch {
	case errors.As(err, &hs) && hs.code >= 400 && hs.code < 500:
		return temporal.NewNonRetryableApplicationError(hs.Error(), cdi.ErrTypeSourceUnreachable, nil)
	case errors.Is(err, ErrInvalidSource):
		return fatal(err, ErrInvalidSource, cdi.ErrTypeInvalidSource)
	case errors.Is(err, ErrUnsupportedImage):
		return fatal(err, ErrUnsupportedImage, cdi.ErrTypeUnsupportedImage)
	case errors.Is(err, ErrTargetTooSmall):
		return fatal(err, ErrTargetTooSmall, cdi.ErrTypeTargetTooSmall)
	}
	return err
}

func fatal(err, sentinel error, typ string) error {
	msg := strings.TrimPrefix(err.Error(), sentinel.Error()+": ")
	return temporal.NewNonRetryableApplicationError(msg, typ, nil)
}

// finishDisk flushes a finished disk image and hands it to DiskUID.
func (a *Activities) finishDisk(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("opening %s to sync: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if a.DiskUID == 0 && a.DiskGID == 0 {
		return nil
	}
	if err := f.Chown(a.DiskUID, a.DiskGID); err != nil {
		return fmt.Errorf("handing %s to %d:%d: %w", path, a.DiskUID, a.DiskGID, err)
	}
	return nil
}
