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
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
		return info, fmt.Errorf("%w: qemu-img cannot read %s: %s", ErrUnsupportedImage, source, stderrOf(err))
	}
	if err := json.Unmarshal(out, &info); err != nil {
		return info, fmt.Errorf("decoding qemu-img info of %s: %w", source, err)
	}
	if info.Format != "raw" && info.Format != "qcow2" {
		return info, fmt.Errorf("%w: %s is %s; raw and qcow2 are supported", ErrUnsupportedImage, source, info.Format)
	}
	return info, nil
}

// WriteRaw converts source (a path or NBD URI) into dst as raw, sparse,
// reporting progress. cache is qemu-img's destination cache mode: "none"
// (direct I/O) where the volume's filesystem supports it.
func WriteRaw(ctx context.Context, source, format, dst, cache string, progress Progress) error {
	cmd := exec.CommandContext(ctx, "qemu-img", "convert", "-p", "-f", format, "-O", "raw", "-t", cache, source, dst)
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
		return fmt.Errorf("converting %s to %s: %w: %s", source, dst, err, strings.TrimSpace(stderr.String()))
	}
	return nil
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

// HTTPExport serves an HTTP(S) image as a read-only NBD export on a unix
// socket, so qemu-img reads it (and qcow2's random access) without a
// scratch copy.
type HTTPExport struct {
	cmd  *exec.Cmd
	done chan error
	dir  string
	sock string
}

// ServeHTTP starts nbdkit's curl plugin for url, decompressing on the fly
// when compression is "gz" or "xz". Its socket lives in a short temporary
// directory: unix socket paths are limited to 108 bytes.
func ServeHTTP(ctx context.Context, url, compression string) (*HTTPExport, error) {
	dir, err := os.MkdirTemp("", "nbd-")
	if err != nil {
		return nil, fmt.Errorf("creating socket directory: %w", err)
	}
	sock := filepath.Join(dir, "nbd.sock")
	args := []string{"--foreground", "--exit-with-parent", "--readonly", "-U", sock}
	switch compression {
	case "gz":
		args = append(args, "--filter=gzip")
	case "xz":
		args = append(args, "--filter=xz")
	}
	cmd := exec.Command("nbdkit", append(args, "curl", "url="+url)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting nbdkit for %s: %w", url, err)
	}
	e := &HTTPExport{cmd: cmd, done: make(chan error, 1), dir: dir, sock: sock}
	go func() { e.done <- cmd.Wait() }()
	if err := e.waitReady(ctx, &stderr); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func (e *HTTPExport) waitReady(ctx context.Context, stderr *bytes.Buffer) error {
	deadline := time.After(30 * time.Second)
	for {
		if c, err := net.Dial("unix", e.sock); err == nil {
			c.Close()
			return nil
		}
		select {
		case err := <-e.done:
			e.done <- err
			return fmt.Errorf("nbdkit could not serve the source: %s", strings.TrimSpace(stderr.String()))
		case <-deadline:
			return errors.New("nbdkit did not listen within 30s")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// URI is the export's NBD URI for qemu-img.
func (e *HTTPExport) URI() string { return "nbd+unix:///?socket=" + e.sock }

// Close stops nbdkit.
func (e *HTTPExport) Close() {
	_ = e.cmd.Process.Kill()
	<-e.done
	_ = os.RemoveAll(e.dir)
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
}

// ImportHTTP writes the image at url into dst as raw: raw, qcow2 or iso,
// any of them gz- or xz-compressed, told apart by content, not by name.
func ImportHTTP(ctx context.Context, url, dst string, opts ImportOptions) (ImageInfo, error) {
	compression, err := probeHTTP(ctx, url)
	if err != nil {
		return ImageInfo{}, err
	}
	exp, err := ServeHTTP(ctx, url, compression)
	if err != nil {
		return ImageInfo{}, err
	}
	defer exp.Close()
	info, err := Inspect(ctx, exp.URI())
	if err != nil {
		return info, err
	}
	if err := CheckFits(info, opts.Size); err != nil {
		return info, err
	}
	if err := WriteRaw(ctx, exp.URI(), info.Format, dst, opts.Cache, opts.Progress); err != nil {
		return info, err
	}
	return info, GrowRaw(ctx, dst, opts.Size)
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

// probeHTTP reads the source's first bytes: it says why a source cannot be
// read before nbdkit hides the HTTP status behind an NBD error (with
// upstream CDI's message), and which compression the content has.
func probeHTTP(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", fmt.Errorf("invalid source URL %q: %w", url, err)
	}
	req.Header.Set("Range", "bytes=0-15")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("unable to connect to http data source: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPartialContent {
		return "", fmt.Errorf("unable to connect to http data source: expected status code 200, got %d. Status: %s", resp.StatusCode, resp.Status)
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(resp.Body, head)
	return compressionOf(head[:n]), nil
}

// compressionOf tells gzip and xz apart from everything else by magic.
func compressionOf(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gz"
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		return "xz"
	}
	return ""
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return strings.TrimSpace(string(ee.Stderr))
	}
	return err.Error()
}
