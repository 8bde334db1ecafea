package executeinvm

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Markers the guest prints around the script. The commands that print them
// build them from two words (printf '%s-%s' VFSTART nonce), so the shell's
// echo of those commands never contains a marker itself.
const (
	readyWord = "VFREADY"
	startWord = "VFSTART"
	exitWord  = "VFEXIT"
	// keepTail is how much unread output a wait keeps: enough for a
	// marker split across reads.
	keepTail = 4096
	// b64Line keeps the encoded script's lines short: an interactive
	// shell's line editor may take no more than about a thousand
	// characters a line.
	b64Line = 76
)

// consoleSession speaks to an interactive shell on a serial console: it
// pokes the console until the shell answers, then sends the script
// base64-encoded (so tabs, quotes and long lines reach the shell unchanged)
// to run in a child shell whose input is /dev/null, between markers that
// carry its output and exit status.
type consoleSession struct {
	rw         io.ReadWriter
	log        io.Writer
	nonce      string
	probeEvery time.Duration
	chunks     chan []byte
	done       chan struct{}
	buf        []byte
}

// newConsoleSession starts reading rw; close stops it.
func newConsoleSession(rw io.ReadWriter, log io.Writer, nonce string, probeEvery time.Duration) *consoleSession {
	s := &consoleSession{rw: rw, log: log, nonce: nonce, probeEvery: probeEvery,
		chunks: make(chan []byte, 64), done: make(chan struct{})}
	go s.read()
	return s
}

func (s *consoleSession) read() {
	defer close(s.chunks)
	b := make([]byte, 4096)
	for {
		n, err := s.rw.Read(b)
		if n > 0 {
			select {
			case s.chunks <- append([]byte(nil), b[:n]...):
			case <-s.done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (s *consoleSession) close() { close(s.done) }

func (s *consoleSession) marker(word string) string { return word + "-" + s.nonce }

// next waits for more output; the console closing is an error.
func (s *consoleSession) next(ctx context.Context, tick <-chan time.Time) (bool, error) {
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-tick:
		return false, nil
	case chunk, ok := <-s.chunks:
		if !ok {
			return false, errors.New("the console closed")
		}
		s.buf = append(s.buf, bytes.ReplaceAll(chunk, []byte("\r"), nil)...)
		return true, nil
	}
}

// waitShell pokes the console with a command printing the ready marker
// until the marker comes back. It does not log in: the console must run a
// shell (as the test guest's does, or a guest with autologin).
func (s *consoleSession) waitShell(ctx context.Context) error {
	probe := fmt.Sprintf("printf '%%s-%%s\\n' %s %s\n", readyWord, s.nonce)
	ticker := time.NewTicker(s.probeEvery)
	defer ticker.Stop()
	if err := s.write(ctx, probe); err != nil {
		return err
	}
	for {
		got, err := s.next(ctx, ticker.C)
		if err != nil {
			return err
		}
		if !got {
			if err := s.write(ctx, probe); err != nil {
				return err
			}
			continue
		}
		if i := bytes.Index(s.buf, []byte(s.marker(readyWord))); i >= 0 {
			s.buf = s.buf[i+len(s.marker(readyWord)):]
			return nil
		}
		s.trim()
	}
}

// trim drops old output a wait no longer needs.
func (s *consoleSession) trim() {
	if len(s.buf) > keepTail {
		s.buf = append(s.buf[:0], s.buf[len(s.buf)-keepTail:]...)
	}
}

// wrap is the command that runs script in the guest. It is one compound
// command, so the shell reads (and echoes) all of it before printing the
// start marker: everything between the markers is the script's output.
func (s *consoleSession) wrap(script string) string {
	enc := base64.StdEncoding.EncodeToString([]byte(script))
	var b strings.Builder
	fmt.Fprintf(&b, "{ printf '%%s-%%s\\n' %s %s; sh -c \"$(base64 -d <<'VFEOF%s'\n", startWord, s.nonce, s.nonce)
	for len(enc) > b64Line {
		b.WriteString(enc[:b64Line] + "\n")
		enc = enc[b64Line:]
	}
	fmt.Fprintf(&b, "%s\nVFEOF%s\n)\" </dev/null; printf '%%s-%%s-%%s\\n' %s %s \"$?\"; }\n", enc, s.nonce, exitWord, s.nonce)
	return b.String()
}

// run sends script and copies its output to the log until the exit
// marker; a non-zero status is an *ExitError. When the context ends first
// the script is interrupted (Ctrl-C).
func (s *consoleSession) run(ctx context.Context, script string) error {
	if err := s.write(ctx, s.wrap(script)); err != nil {
		return err
	}
	started := false
	for {
		got, err := s.next(ctx, nil)
		if ctx.Err() != nil {
			s.interrupt()
			return ctx.Err()
		}
		if err != nil {
			return err
		}
		if !got {
			continue
		}
		if !started {
			if started = s.skipPast(s.marker(startWord) + "\n"); !started {
				s.trim()
				continue
			}
		}
		if code, ok := s.output(); ok {
			return exitStatus(code)
		}
	}
}

// skipPast drops output up to and including text, if it has come.
func (s *consoleSession) skipPast(text string) bool {
	i := bytes.Index(s.buf, []byte(text))
	if i < 0 {
		return false
	}
	s.buf = s.buf[i+len(text):]
	return true
}

// output logs the script's complete lines; once the exit marker's line has
// come it logs what precedes the marker and returns the status.
func (s *consoleSession) output() (int, bool) {
	exit := []byte(s.marker(exitWord) + "-")
	if i := bytes.Index(s.buf, exit); i >= 0 {
		rest := s.buf[i+len(exit):]
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			return 0, false
		}
		code, err := strconv.Atoi(string(rest[:end]))
		if err != nil {
			code = -1
		}
		s.logOutput(s.buf[:i])
		s.buf = rest[end+1:]
		return code, true
	}
	if nl := bytes.LastIndexByte(s.buf, '\n'); nl >= 0 {
		s.logOutput(s.buf[:nl+1])
		s.buf = append(s.buf[:0], s.buf[nl+1:]...)
	}
	return 0, false
}

// write types text on the console; a write the context outlives is left
// to the stream's closing.
func (s *consoleSession) write(ctx context.Context, text string) error {
	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(s.rw, text)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("writing to the console: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// interrupt types Ctrl-C, without waiting for the console to take it.
func (s *consoleSession) interrupt() {
	go func() { _, _ = io.WriteString(s.rw, "\x03") }()
}

func (s *consoleSession) logOutput(b []byte) {
	if s.log != nil && len(b) > 0 {
		_, _ = s.log.Write(b)
	}
}

func exitStatus(code int) error {
	if code == 0 {
		return nil
	}
	return &ExitError{Code: code}
}
