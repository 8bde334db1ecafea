package storage

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// uploadProgress is heartbeated: where the upload server listens and how
// much it has received, for the Web UI and the temporal CLI.
type uploadProgress struct {
	Address  string `json:"address"`
	Received int64  `json:"received"`
}

// ReceiveUpload serves one upload into the volume: it listens on the
// node, reports its address to its workflow (whose memo tells the
// DataVolume the upload is ready and cdi-uploadproxy where to forward),
// notes it on the claim for people to read, and returns once an upload
// with its DataVolume's token has been written. A failed attempt (a
// dropped connection) leaves it listening for the next one; an image that
// can never fit ends it.
func (a *Activities) ReceiveUpload(ctx context.Context, req cdi.ImportRequest) (res cdi.ImportResult, err error) {
	// Reported from here on, so that an attempt failing to listen says so.
	rep := a.reporter(ctx, cdi.ReceiveUploadName)
	defer func() { rep.end(ctx, err) }()
	u, err := a.newUploadServer(ctx, req)
	if err != nil {
		return cdi.ImportResult{}, err
	}
	host := a.NodeIP
	if host == "" {
		host = "127.0.0.1"
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return cdi.ImportResult{}, fmt.Errorf("listening for the upload: %w", err)
	}
	if a.UploadTLS != nil {
		l = tls.NewListener(l, a.UploadTLS.Server())
	}
	srv := &http.Server{Handler: u, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	addr := l.Addr().String()
	claim := a.claimNotes(req.Namespace, req.Claim)
	claim.set(ctx, map[string]*string{cdi.AnnUploadServer: &addr})
	// The proxy must not forward to a server that is gone; the context
	// may be cancelled by now, the note must still go.
	defer claim.set(context.WithoutCancel(ctx), map[string]*string{cdi.AnnUploadServer: nil})
	rep.start(ctx, addr)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		activity.RecordHeartbeat(ctx, uploadProgress{Address: addr, Received: u.received.Load()})
		select {
		case out := <-u.done:
			return out.res, out.err
		case <-ctx.Done():
			return cdi.ImportResult{}, ctx.Err()
		case <-tick.C:
		}
	}
}

// newUploadServer is the server of the DataVolume the cluster says the
// request is for, writing into its volume and taking only its token.
func (a *Activities) newUploadServer(ctx context.Context, req cdi.ImportRequest) (*uploadServer, error) {
	t, err := a.resolveTarget(ctx, fillUpload, requestOf(req))
	if err != nil {
		return nil, err
	}
	key, err := a.uploadKey()
	if err != nil {
		return nil, err
	}
	req.VolumeDir = t.dir
	auth := uploadAuth{key: key, namespace: t.dv.Namespace, name: t.dv.Name}
	return &uploadServer{a: a, req: req, auth: auth, done: make(chan uploadOutcome, 1)}, nil
}

type uploadOutcome struct {
	res cdi.ImportResult
	err error
}

// uploadServer writes each POSTed image that carries its DataVolume's
// upload token to the volume's disk.
type uploadServer struct {
	a        *Activities
	req      cdi.ImportRequest
	auth     uploadAuth
	received atomic.Int64
	busy     atomic.Bool
	done     chan uploadOutcome
}

func (u *uploadServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != cdi.UploadPath {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	// Before anything is read or written: nothing of an unauthenticated
	// request reaches the disk.
	if err := u.auth.check(r); err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if !u.busy.CompareAndSwap(false, true) {
		http.Error(w, "an upload into this volume is already in progress", http.StatusConflict)
		return
	}
	defer u.busy.Store(false)
	u.received.Store(0)
	res, err := u.write(r.Context(), &countingReader{r: r.Body, n: &u.received})
	switch {
	case err == nil:
		w.WriteHeader(http.StatusOK)
		u.done <- uploadOutcome{res: res}
	case errors.Is(err, ErrTargetTooSmall) || errors.Is(err, ErrUnsupportedImage):
		http.Error(w, err.Error(), http.StatusBadRequest)
		u.done <- uploadOutcome{err: classify(err)}
	default:
		// A dropped or broken upload: the client may send it again.
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// write decompresses the stream as its magic says, then writes raw (and
// iso) straight into the disk in one pass; qcow2 needs random access, so
// it lands in scratch space on the volume and is converted from there.
func (u *uploadServer) write(ctx context.Context, body io.Reader) (cdi.ImportResult, error) {
	res, err := u.writeDisk(ctx, body)
	if err != nil {
		return res, err
	}
	return res, u.a.finishDisk(filepath.Join(u.req.VolumeDir, cdi.DiskFileName))
}

// writeDisk writes the body as the raw disk image: raw bytes as they come,
// a qcow2 image converted.
func (u *uploadServer) writeDisk(ctx context.Context, body io.Reader) (cdi.ImportResult, error) {
	stream, closeStream, err := decompressed(ctx, bufio.NewReaderSize(body, 1<<20))
	if err != nil {
		return cdi.ImportResult{}, err
	}
	defer closeStream()
	br := bufio.NewReaderSize(stream, 1<<20)
	head, _ := br.Peek(4)
	disk := filepath.Join(u.req.VolumeDir, cdi.DiskFileName)
	if !bytes.Equal(head, []byte("QFI\xfb")) {
		n, err := writeStream(disk, br, u.req.Size)
		if err != nil {
			return cdi.ImportResult{}, err
		}
		return cdi.ImportResult{Format: "raw", VirtualSize: n}, GrowRaw(ctx, disk, u.req.Size)
	}
	scratch := volumeScratch(u.req.VolumeDir)
	defer os.RemoveAll(scratch)
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return cdi.ImportResult{}, fmt.Errorf("creating scratch directory: %w", err)
	}
	tmp := filepath.Join(scratch, "upload.qcow2")
	if _, err := writeStream(tmp, br, 0); err != nil {
		return cdi.ImportResult{}, err
	}
	info, err := ImportFile(ctx, tmp, disk, ImportOptions{Cache: CacheModeFor(u.req.VolumeDir), Size: u.req.Size, ScratchDir: ScratchDir(u.req.Key)})
	return cdi.ImportResult{Format: info.Format, VirtualSize: info.VirtualSize}, err
}

// decompressed unwraps gzip in process and xz through the xz tool.
func decompressed(ctx context.Context, br *bufio.Reader) (io.Reader, func(), error) {
	head, _ := br.Peek(16)
	switch compressionOf(head) {
	case "gz":
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: reading gzip stream: %w", ErrUnsupportedImage, err)
		}
		return zr, func() { zr.Close() }, nil
	case "xz":
		cmd := exec.CommandContext(ctx, "xz", "-dc")
		cmd.Stdin = br
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, nil, fmt.Errorf("starting xz: %w", err)
		}
		x := &xzReader{out: out, cmd: cmd, stderr: &stderr}
		return x, x.close, nil
	}
	return br, func() {}, nil
}

// xzReader turns xz's failure (a truncated or corrupt stream) into a read
// error instead of a clean end of data.
type xzReader struct {
	out    io.Reader
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	waited bool
}

func (x *xzReader) Read(p []byte) (int, error) {
	n, err := x.out.Read(p)
	if err == io.EOF && !x.waited {
		x.waited = true
		if werr := x.cmd.Wait(); werr != nil {
			return n, fmt.Errorf("decompressing xz: %w: %s", werr, bytes.TrimSpace(x.stderr.Bytes()))
		}
	}
	return n, err
}

func (x *xzReader) close() {
	if !x.waited {
		_ = x.cmd.Process.Kill()
		_ = x.cmd.Wait()
	}
}

// sparseBlock is the granularity of sparse writes: an all-zero block of it
// is skipped rather than written.
const sparseBlock = 64 << 10

// writeStream writes r into path sparse (zero blocks are skipped, so a
// mostly empty raw disk does not take its full size), and refuses more
// than limit bytes when limit is set, with CDI's message. A reader cut
// short (io.ErrUnexpectedEOF) is an error, not the end of the image.
func writeStream(path string, r io.Reader, limit int64) (int64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o660)
	if err != nil {
		return 0, fmt.Errorf("creating %s: %w", path, err)
	}
	defer f.Close()
	buf, zero := make([]byte, 1<<20), make([]byte, sparseBlock)
	var off int64
	for {
		n, rerr := fill(r, buf)
		if limit > 0 && off+int64(n) > limit {
			return off, fmt.Errorf("%w: Virtual image size is larger than the reported available storage %d. A larger PVC is required.", ErrTargetTooSmall, limit)
		}
		for i := 0; i < n; i += sparseBlock {
			b := buf[i:min(i+sparseBlock, n)]
			if !bytes.Equal(b, zero[:len(b)]) {
				if _, err := f.WriteAt(b, off+int64(i)); err != nil {
					return off, fmt.Errorf("writing %s: %w", path, err)
				}
			}
		}
		off += int64(n)
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return off, fmt.Errorf("reading the image for %s: %w", path, rerr)
		}
	}
	if err := f.Truncate(off); err != nil {
		return off, fmt.Errorf("sizing %s: %w", path, err)
	}
	return off, f.Sync()
}

// fill reads until buf is full or r fails; unlike io.ReadFull it keeps a
// clean io.EOF apart from a body cut short (io.ErrUnexpectedEOF).
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
