package executeinvm

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTTY is a serial console in memory: what the task writes is echoed
// back as a terminal does (newlines as CR LF) and, once the guest has
// "booted", fed to a real shell whose output comes back the same way.
type fakeTTY struct {
	in      *io.PipeReader
	inW     *io.PipeWriter
	out     *io.PipeReader
	outW    *io.PipeWriter
	mu      sync.Mutex
	written bytes.Buffer
}

func (f *fakeTTY) Read(p []byte) (int, error) { return f.out.Read(p) }

func (f *fakeTTY) Write(p []byte) (int, error) {
	f.mu.Lock()
	f.written.Write(p)
	f.mu.Unlock()
	return f.inW.Write(p)
}

func (f *fakeTTY) Close() error {
	f.inW.Close()
	return f.out.Close()
}

func (f *fakeTTY) typed() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.written.String()
}

func crlf(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }

// newShellTTY boots after bootTime (input before then is lost, as on a
// console nobody reads yet), printing boot noise, then runs sh.
func newShellTTY(t *testing.T, bootTime time.Duration) *fakeTTY {
	if _, err := exec.LookPath("base64"); err != nil {
		t.Skip("no base64 on this machine")
	}
	f := &fakeTTY{}
	f.in, f.inW = io.Pipe()
	f.out, f.outW = io.Pipe()
	cmd := exec.Command("sh", "-s")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	shOut := &crlfWriter{w: f.outW}
	cmd.Stdout, cmd.Stderr = shOut, shOut
	cmd.WaitDelay = 100 * time.Millisecond // a killed sh leaves its sleep holding stdout
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait(); f.Close() })
	booted := time.Now().Add(bootTime)
	go func() {
		_, _ = f.outW.Write(crlf([]byte("[    0.000000] Linux version 6.1.0\nVIRTFLOW-DISK-OK\n")))
		b := make([]byte, 1024)
		for {
			n, err := f.in.Read(b)
			if err != nil {
				return
			}
			if time.Now().Before(booted) {
				continue
			}
			_, _ = f.outW.Write(crlf(b[:n]))
			_, _ = stdin.Write(b[:n])
		}
	}()
	return f
}

type crlfWriter struct{ w io.Writer }

func (c *crlfWriter) Write(p []byte) (int, error) {
	_, err := c.w.Write(crlf(p))
	return len(p), err
}

func session(t *testing.T, tty *fakeTTY, log io.Writer) *consoleSession {
	s := newConsoleSession(tty, log, "0123abcd", 50*time.Millisecond)
	t.Cleanup(s.close)
	return s
}

func TestConsoleRunsTheScript(t *testing.T) {
	tty := newShellTTY(t, 120*time.Millisecond)
	var log bytes.Buffer
	s := session(t, tty, &log)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.waitShell(ctx))

	script := "echo hello\n\tprintf 'tab\\tquote\"s\\n'\necho \"$((1+2))\"\nread x; echo \"read:$x\"\necho " + strings.Repeat("x", 2000)
	require.NoError(t, s.run(ctx, script))
	assert.Equal(t, "hello\ntab\tquote\"s\n3\nread:\n"+strings.Repeat("x", 2000)+"\n", log.String(),
		"only the script's output, without the echo of what was typed")

	log.Reset()
	err := s.run(ctx, "echo failing >&2; exit 7")
	assert.EqualError(t, err, "exit status 7")
	assert.Equal(t, "failing\n", log.String())

	log.Reset()
	require.NoError(t, s.run(ctx, "printf no-newline"))
	assert.Equal(t, "no-newline", log.String())
}

func TestConsoleProbesUntilTheShellAnswers(t *testing.T) {
	tty := newShellTTY(t, 300*time.Millisecond)
	s := session(t, tty, io.Discard)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.waitShell(ctx))
	assert.Greater(t, strings.Count(tty.typed(), "VFREADY 0123abcd"), 2, "the console was poked again while the guest booted")
	assert.NotContains(t, tty.typed(), "VFREADY-0123abcd", "the typed probe never holds the marker itself")
}

func TestConsoleWaitEndsWithTheContext(t *testing.T) {
	tty := newShellTTY(t, time.Hour)
	s := session(t, tty, io.Discard)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, s.waitShell(ctx), context.DeadlineExceeded)
}

func TestConsoleTimeoutInterruptsTheScript(t *testing.T) {
	tty := newShellTTY(t, 0)
	s := session(t, tty, io.Discard)
	require.NoError(t, s.waitShell(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, s.run(ctx, "sleep 5"), context.DeadlineExceeded)
	assert.Eventually(t, func() bool { return strings.HasSuffix(tty.typed(), "\x03") },
		time.Second, 10*time.Millisecond, "Ctrl-C was typed")
}

func TestConsoleClosedMidScript(t *testing.T) {
	tty := newShellTTY(t, 0)
	s := session(t, tty, io.Discard)
	require.NoError(t, s.waitShell(context.Background()))
	go func() { time.Sleep(200 * time.Millisecond); tty.outW.Close() }()
	assert.EqualError(t, s.run(context.Background(), "sleep 5"), "the console closed")
}
