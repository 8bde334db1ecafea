package temporal

import (
	"fmt"
	"io"
	stdlog "log"
	"os"
)

// redirectUILog sends the standard logger, which the Web UI's TLS
// reloader writes to at every connection it makes, into the server's log
// file instead of the terminal of whoever runs `up`. The returned closer
// puts the standard logger back on stderr.
func redirectUILog(logFile string) (io.Closer, error) {
	if logFile == "" {
		return io.NopCloser(nil), nil
	}
	f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the Web UI's log: %w", err)
	}
	stdlog.SetOutput(f)
	return closerFunc(func() error {
		stdlog.SetOutput(os.Stderr)
		return f.Close()
	}), nil
}

type closerFunc func() error

func (c closerFunc) Close() error { return c() }
