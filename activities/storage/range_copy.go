package storage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Chunk bounds of a resumable copy. The first chunk is small so a slow
// source checkpoints early; later chunks are sized from the measured rate
// so each takes about CopyOptions.ChunkTime, which keeps qemu-img restarts
// rare on a fast source.
const (
	minChunk = 64 << 20
	maxChunk = 16 << 30
)

// CopyOptions tune a resumable copy.
type CopyOptions struct {
	// Cache is qemu-img's destination cache mode (see CacheModeFor).
	Cache string
	// From is where an earlier attempt's last checkpoint left off.
	From int64
	// Checkpoint is called after each chunk is written, with the offset up
	// to which the target is complete.
	Checkpoint func(offset int64)
	// Progress receives the bytes (of the virtual size) written so far.
	Progress func(done int64)
	// ChunkTime is the wanted duration of one chunk; 3 s when zero.
	ChunkTime time.Duration
	// StallTimeout ends the copy with a StallError when it makes no
	// progress for that long; DefaultStallTimeout when zero.
	StallTimeout time.Duration
}

// Node is a qemu protocol node (where an image's bytes come from), its
// option keys under a prefix.
type Node func(prefix string) string

// NBDNode reads an NBD export on a unix socket.
func NBDNode(sock string) Node {
	return func(prefix string) string {
		return prefix + "driver=nbd," + prefix + "server.type=unix," + prefix + "server.path=" + optEscape(sock)
	}
}

// FileNode reads a local file.
func FileNode(path string) Node {
	return func(prefix string) string {
		return prefix + "driver=file," + prefix + "filename=" + optEscape(path)
	}
}

// CopyResumable writes the guest view of src (format raw or qcow2,
// virtual size total) into dst as raw, chunk by chunk, so that a copy cut
// short resumes from its last checkpoint instead of from zero. Rewriting
// a chunk is harmless, so a chunk that was in flight when the copy died is
// simply written again.
func CopyResumable(ctx context.Context, src Node, format string, total int64, dst string, opts CopyOptions) error {
	if err := ensureSize(dst, total); err != nil {
		return err
	}
	if opts.ChunkTime == 0 {
		opts.ChunkTime = 3 * time.Second
	}
	if opts.StallTimeout == 0 {
		opts.StallTimeout = DefaultStallTimeout
	}
	chunk := int64(minChunk)
	for off := opts.From; off < total; {
		n := min(chunk, total-off)
		start := time.Now()
		if err := copyWatched(ctx, src, format, dst, off, n, opts); err != nil {
			return err
		}
		off += n
		if opts.Checkpoint != nil {
			opts.Checkpoint(off)
		}
		chunk = nextChunk(n, time.Since(start), opts.ChunkTime)
	}
	return nil
}

// copyWatched copies one chunk under a watchdog: progress reports keep
// it alive, and a chunk that stalls ends in a StallError at the offset
// reached.
func copyWatched(ctx context.Context, src Node, format, dst string, off, n int64, opts CopyOptions) error {
	cctx, alive, done := watch(ctx, opts.StallTimeout)
	reached := off
	progress := func(pct float64) {
		alive()
		reached = off + int64(pct*float64(n)/100)
		if opts.Progress != nil {
			opts.Progress(reached)
		}
	}
	err := CopyRange(cctx, src, format, dst, opts.Cache, off, n, progress)
	if done() && ctx.Err() == nil {
		return &StallError{Offset: reached, Timeout: opts.StallTimeout}
	}
	return err
}

func nextChunk(n int64, took, want time.Duration) int64 {
	if took <= 0 {
		took = time.Millisecond
	}
	next := int64(float64(n) * float64(want) / float64(took))
	next = max(minChunk, min(maxChunk, next))
	return next &^ (1<<20 - 1)
}

// ensureSize makes dst a file of at least size bytes, sparse; it never
// shrinks one (an earlier attempt may have grown it already).
func ensureSize(dst string, size int64) error {
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o660)
	if err != nil {
		return fmt.Errorf("opening target %s: %w", dst, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading target %s: %w", dst, err)
	}
	if st.Size() < size {
		if err := f.Truncate(size); err != nil {
			return fmt.Errorf("sizing target %s to %d bytes: %w", dst, size, err)
		}
	}
	return nil
}

// CopyRange writes bytes [off, off+n) of the export's guest view to the
// same range of dst with qemu-img, which reads qcow2 natively, skips zero
// areas (punching holes) and writes with the given cache mode.
func CopyRange(ctx context.Context, from Node, format, dst, cache string, off, n int64, progress Progress) error {
	window := ",offset=" + strconv.FormatInt(off, 10) + ",size=" + strconv.FormatInt(n, 10)
	src := "driver=raw" + window + "," + from("file.")
	if format == "qcow2" {
		src = "driver=raw" + window + ",file.driver=qcow2," + from("file.file.")
	}
	dstOpts := "driver=raw" + window + ",file.driver=file,file.filename=" + optEscape(dst)
	cmd := exec.CommandContext(ctx, "qemu-img", "convert", "-p", "-n", "-W", "-t", cache,
		"--image-opts", src, "--target-image-opts", dstOpts)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting qemu-img convert: %w", err)
	}
	readProgress(stdout, progress)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("writing bytes %d-%d of %s: %w: %s", off, off+n, dst, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// optEscape doubles commas, which qemu's option syntax uses as separators.
func optEscape(s string) string { return strings.ReplaceAll(s, ",", ",,") }
