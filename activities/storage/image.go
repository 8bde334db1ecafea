// Package storage holds CDI's node-local disk work: reading an image from
// an HTTP source without a scratch copy (nbdkit's curl plugin serves it as
// an NBD export) and writing it to a volume as raw with qemu-img, with
// progress. Activities wrap these; they are plain functions so they can be
// tested against real nbdkit and qemu-img.
package storage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ErrUnsupportedImage marks an image qemu-img cannot read as a disk: a
// retry cannot fix it.
var ErrUnsupportedImage = errors.New("unsupported image")

// ImageInfo is what qemu-img reports about a source.
type ImageInfo struct {
	Format      string `json:"format"`
	VirtualSize int64  `json:"virtual-size"`
}

// Progress receives the percentage written so far.
type Progress func(percent float64)

// Inspect reads a source's format and virtual size.
func Inspect(ctx context.Context, source string) (ImageInfo, error) {
	var info ImageInfo
	out, err := exec.CommandContext(ctx, "qemu-img", "info", "--output=json", source).Output()
	if err != nil {
		// qemu-img names the NBD socket before the reason; the socket
		// means nothing to the owner of the image.
		reason := stderrOf(err)
		if i := strings.LastIndex(reason, "': "); i >= 0 {
			reason = reason[i+3:]
		}
		return info, fmt.Errorf("%w: the source is not a disk image qemu-img can read: %s", ErrUnsupportedImage, reason)
	}
	if err := json.Unmarshal(out, &info); err != nil {
		return info, fmt.Errorf("decoding qemu-img info of %s: %w", source, err)
	}
	if info.Format != "raw" && info.Format != "qcow2" {
		return info, fmt.Errorf("%w: the source is a %s image; raw and qcow2 are supported, optionally gz or xz compressed", ErrUnsupportedImage, info.Format)
	}
	return info, nil
}

// readProgress parses qemu-img's "    (42.00/100%)\r" lines.
func readProgress(r io.Reader, progress Progress) {
	sc := bufio.NewScanner(r)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "(") {
			continue
		}
		pct, _, _ := strings.Cut(strings.TrimPrefix(line, "("), "/")
		if v, err := strconv.ParseFloat(pct, 64); err == nil && progress != nil {
			progress(v)
		}
	}
}

// ImportOptions tune an import.
type ImportOptions struct {
	// Cache is qemu-img's destination cache mode (see CacheModeFor).
	Cache string
	// Size is the target's usable size in bytes: an image whose virtual
	// size exceeds it is refused before anything is written, and a smaller
	// one is grown to it, as CDI resizes to the requested size. 0 leaves
	// the image at its virtual size.
	Size int64
	// Progress receives the percentage written.
	Progress Progress
	// From and Checkpoint resume a copy (see CopyOptions).
	From       int64
	Checkpoint func(offset int64)
	// ScratchDir holds nbdkit's socket and temporary files; a new
	// temporary directory when empty.
	ScratchDir string
	// StallTimeout bounds how long the source may send nothing (see
	// CopyOptions).
	StallTimeout time.Duration
}

// Import writes the image src into dst as raw: raw, qcow2 or iso, any of
// them gz- or xz-compressed, told apart by content, not by name.
func Import(ctx context.Context, src Source, dst string, opts ImportOptions) (ImageInfo, error) {
	compression, err := bounded(ctx, opts, func(ctx context.Context) (string, error) { return probe(ctx, src) })
	if err != nil {
		return ImageInfo{}, err
	}
	exp, err := ServeHTTP(ctx, src, compression, opts.ScratchDir)
	if err != nil {
		return ImageInfo{}, err
	}
	defer exp.Close()
	return importExport(ctx, exp, dst, opts)
}

// ImportFile is Import of a local image file.
func ImportFile(ctx context.Context, path, dst string, opts ImportOptions) (ImageInfo, error) {
	head := make([]byte, 16)
	f, err := os.Open(path)
	if err != nil {
		return ImageInfo{}, fmt.Errorf("opening image %s: %w", path, err)
	}
	n, _ := io.ReadFull(f, head)
	f.Close()
	exp, err := ServeFile(ctx, path, compressionOf(head[:n]), opts.ScratchDir)
	if err != nil {
		return ImageInfo{}, err
	}
	defer exp.Close()
	return importExport(ctx, exp, dst, opts)
}

// importExport checks the export's image against the target and copies it
// in resumable chunks, then grows it to the target's size.
func importExport(ctx context.Context, exp *HTTPExport, dst string, opts ImportOptions) (ImageInfo, error) {
	info, err := bounded(ctx, opts, func(ctx context.Context) (ImageInfo, error) { return Inspect(ctx, exp.URI()) })
	if err != nil {
		return info, err
	}
	if err := CheckFits(info, opts.Size); err != nil {
		return info, err
	}
	err = CopyResumable(ctx, NBDNode(exp.Socket()), info.Format, info.VirtualSize, dst, CopyOptions{
		Cache: opts.Cache, From: opts.From, Checkpoint: opts.Checkpoint, StallTimeout: opts.StallTimeout,
		Progress: func(done int64) {
			if opts.Progress != nil && info.VirtualSize > 0 {
				opts.Progress(100 * float64(done) / float64(info.VirtualSize))
			}
		},
	})
	if err != nil {
		return info, err
	}
	return info, GrowRaw(ctx, dst, opts.Size)
}

// ImportHTTP is Import of a plain URL.
func ImportHTTP(ctx context.Context, url, dst string, opts ImportOptions) (ImageInfo, error) {
	return Import(ctx, Source{URL: url}, dst, opts)
}

// ErrTargetTooSmall marks a target that cannot hold the image.
var ErrTargetTooSmall = errors.New("target too small")

// CheckFits refuses an image larger than the target, with CDI's message.
func CheckFits(info ImageInfo, available int64) error {
	if available > 0 && info.VirtualSize > available {
		return fmt.Errorf("%w: Virtual image size %d is larger than the reported available storage %d. A larger PVC is required.",
			ErrTargetTooSmall, info.VirtualSize, available)
	}
	return nil
}

// GrowRaw extends a raw image to size (sparse); it never shrinks one.
func GrowRaw(ctx context.Context, path string, size int64) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("reading size of %s: %w", path, err)
	}
	if size <= st.Size() {
		return nil
	}
	out, err := exec.CommandContext(ctx, "qemu-img", "resize", "-q", "-f", "raw", path, strconv.FormatInt(size, 10)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("resizing %s to %d bytes: %w: %s", path, size, err, strings.TrimSpace(string(out)))
	}
	return nil
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return strings.TrimSpace(string(ee.Stderr))
	}
	return err.Error()
}
