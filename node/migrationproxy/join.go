package migrationproxy

import (
	"errors"
	"io"
	"net"
	"sync"
)

// halfCloser is a connection whose writing side closes on its own, so
// that one direction's end reaches the peer while the other still flows.
type halfCloser interface {
	CloseWrite() error
}

// join copies both ways until both directions end, then closes both.
// It returns the first error that was not a plain end of stream.
func join(a, b net.Conn) error {
	var wg sync.WaitGroup
	errs := make([]error, 2)
	pipe := func(i int, dst, src net.Conn) {
		defer wg.Done()
		_, errs[i] = io.Copy(dst, src)
		if hc, ok := dst.(halfCloser); ok {
			_ = hc.CloseWrite()
		} else {
			_ = dst.Close()
		}
	}
	wg.Add(2)
	go pipe(0, a, b)
	go pipe(1, b, a)
	wg.Wait()
	_ = a.Close()
	_ = b.Close()
	for _, err := range errs {
		if err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
	}
	return nil
}
