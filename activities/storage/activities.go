package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Activity names, registered on a node's task queue.
const (
	ImportDiskName   = "storage.ImportDisk"
	CleanupDiskName  = "storage.CleanupImport"
	DiskFileName     = "disk.img"
	heartbeatEvery   = 2 * time.Second
	scratchDirPrefix = "virtflow-import-"
)

// Error types of failures a retry cannot fix; workflows and conditions
// name them.
const (
	ErrTypeSourceUnreachable = "SourceUnreachable"
	ErrTypeUnsupportedImage  = "UnsupportedImage"
	ErrTypeTargetTooSmall    = "TargetTooSmall"
	ErrTypeInvalidSource     = "InvalidSource"
)

// Activities are CDI's node-local disk activities.
type Activities struct {
	// Client reads the secrets and config maps a source refers to.
	Client client.Client
	// NodeIP is where this node's upload servers listen (127.0.0.1 when
	// empty).
	NodeIP string
}

// SourceRef names an http(s) source and the objects holding its
// credentials, as a DataVolume does; secrets never pass through workflow
// history.
type SourceRef struct {
	URL           string `json:"url"`
	SecretRef     string `json:"secretRef,omitempty"`
	CertConfigMap string `json:"certConfigMap,omitempty"`
	// Registry marks a docker:// image holding the disk under /disk/;
	// Insecure allows it over plain http (CDIConfig's insecureRegistries).
	Registry bool `json:"registry,omitempty"`
	Insecure bool `json:"insecure,omitempty"`
}

// ImportRequest is one disk to fill on this node.
type ImportRequest struct {
	// Namespace holds the source's secret and config map.
	Namespace string `json:"namespace"`
	// VolumeDir is the volume's directory on the node; the disk is
	// VolumeDir/disk.img, as CDI writes filesystem volumes.
	VolumeDir string `json:"volumeDir"`
	// Source is read unless Blank is set.
	Source SourceRef `json:"source"`
	Blank  bool      `json:"blank,omitempty"`
	// Size is the disk's usable size in bytes.
	Size int64 `json:"size"`
	// Key names the import's scratch directory (the DataVolume's UID).
	Key string `json:"key"`
}

// ImportProgress is heartbeated: Offset is where a retry resumes.
type ImportProgress struct {
	Offset      int64   `json:"offset"`
	Percent     float64 `json:"percent"`
	ResumedFrom int64   `json:"resumedFrom,omitempty"`
}

// ImportResult describes the written disk.
type ImportResult struct {
	Format      string `json:"format,omitempty"`
	VirtualSize int64  `json:"virtualSize"`
	// ResumedFrom is the offset the final attempt started at: non-zero
	// when an earlier attempt was cut short and its work was kept.
	ResumedFrom int64 `json:"resumedFrom,omitempty"`
}

// ImportDisk fills the volume's disk from its source, heartbeating a
// checkpoint so that a retry after a crash resumes where the last one left
// off.
func (a *Activities) ImportDisk(ctx context.Context, req ImportRequest) (ImportResult, error) {
	disk := filepath.Join(req.VolumeDir, DiskFileName)
	if req.Blank {
		if err := ensureSize(disk, req.Size); err != nil {
			return ImportResult{}, err
		}
		return ImportResult{Format: "raw", VirtualSize: req.Size}, syncFile(disk)
	}
	var last ImportProgress
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &last)
	}
	hb := newHeartbeater(ctx, last.Offset)
	defer hb.stop()
	info, err := a.importSource(ctx, req, disk, ImportOptions{
		Cache: CacheModeFor(req.VolumeDir), Size: req.Size, From: last.Offset,
		Checkpoint: hb.checkpoint, Progress: hb.progress, ScratchDir: ScratchDir(req.Key),
	})
	if ctx.Err() != nil {
		// Cancelled: say so, rather than how the killed qemu-img died.
		return ImportResult{}, ctx.Err()
	}
	if err != nil {
		return ImportResult{}, classify(err)
	}
	if err := syncFile(disk); err != nil {
		return ImportResult{}, err
	}
	return ImportResult{Format: info.Format, VirtualSize: info.VirtualSize, ResumedFrom: last.Offset}, nil
}

// importSource reads an http(s) source in place; a registry image's disk
// is pulled into the volume's scratch directory first (a layer is a
// stream, not random access), once: a retry reuses a complete pull.
func (a *Activities) importSource(ctx context.Context, req ImportRequest, disk string, opts ImportOptions) (ImageInfo, error) {
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

// CleanupImport removes the import's scratch directory and, when the
// import did not finish (it was cancelled), its partial disk.
func (a *Activities) CleanupImport(ctx context.Context, req ImportRequest, removeDisk bool) error {
	for _, dir := range []string{ScratchDir(req.Key), volumeScratch(req.VolumeDir)} {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("removing scratch directory %s: %w", dir, err)
		}
	}
	if removeDisk {
		if err := os.Remove(filepath.Join(req.VolumeDir, DiskFileName)); err != nil && !errors.Is(err, os.ErrNotExist) {
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
		return temporal.NewNonRetryableApplicationError(hs.Error(), ErrTypeSourceUnreachable, nil)
	case errors.Is(err, ErrInvalidSource):
		return fatal(err, ErrInvalidSource, ErrTypeInvalidSource)
	case errors.Is(err, ErrUnsupportedImage):
		return fatal(err, ErrUnsupportedImage, ErrTypeUnsupportedImage)
	case errors.Is(err, ErrTargetTooSmall):
		return fatal(err, ErrTargetTooSmall, ErrTypeTargetTooSmall)
	}
	return err
}

func fatal(err, sentinel error, typ string) error {
	msg := strings.TrimPrefix(err.Error(), sentinel.Error()+": ")
	return temporal.NewNonRetryableApplicationError(msg, typ, nil)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("opening %s to sync: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	return nil
}

// heartbeater records the last checkpoint and the percentage on a timer,
// not on every qemu-img progress line.
type heartbeater struct {
	mu      sync.Mutex
	p       ImportProgress
	done    chan struct{}
	stopped sync.Once
}

func newHeartbeater(ctx context.Context, from int64) *heartbeater {
	h := &heartbeater{p: ImportProgress{Offset: from, ResumedFrom: from}, done: make(chan struct{})}
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			h.mu.Lock()
			p := h.p
			h.mu.Unlock()
			activity.RecordHeartbeat(ctx, p)
			select {
			case <-t.C:
			case <-h.done:
				return
			}
		}
	}()
	return h
}

func (h *heartbeater) checkpoint(off int64) {
	h.mu.Lock()
	h.p.Offset = off
	h.mu.Unlock()
}

func (h *heartbeater) progress(pct float64) {
	h.mu.Lock()
	h.p.Percent = pct
	h.mu.Unlock()
}

func (h *heartbeater) stop() { h.stopped.Do(func() { close(h.done) }) }
