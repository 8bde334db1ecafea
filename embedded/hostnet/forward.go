package hostnet

import (
	"fmt"
	"io"
	"net"
	"sync"
)

// Forwarder relays TCP connections from one local address to another.
type Forwarder struct {
	l      net.Listener
	to     string
	wg     sync.WaitGroup
	mu     sync.Mutex
	open   map[net.Conn]struct{}
	closed bool
}

// Forward listens on from and relays every connection to to, so a service
// bound to the node's bridge keeps answering on loopback as well.
func Forward(from, to string) (*Forwarder, error) {
	l, err := net.Listen("tcp", from)
	if err != nil {
		return nil, fmt.Errorf("listening on %s to forward to %s: %w", from, to, err)
	}
	f := &Forwarder{l: l, to: to, open: map[net.Conn]struct{}{}}
	f.wg.Add(1)
	go f.accept()
	return f, nil
}

func (f *Forwarder) accept() {
	defer f.wg.Done()
	for {
		c, err := f.l.Accept()
		if err != nil {
			return
		}
		if !f.track(c) {
			_ = c.Close()
			return
		}
		f.wg.Add(1)
		go f.relay(c)
	}
}

func (f *Forwarder) relay(c net.Conn) {
	defer f.wg.Done()
	defer c.Close()
	defer f.untrack(c)
	up, err := net.Dial("tcp", f.to)
	if err != nil {
		return
	}
	defer up.Close()
	if !f.track(up) {
		return
	}
	defer f.untrack(up)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

// track records an open connection for Close to cut; false once closed.
func (f *Forwarder) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.open[c] = struct{}{}
	return true
}

func (f *Forwarder) untrack(c net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.open, c)
}

// Close stops listening and cuts the relayed connections.
func (f *Forwarder) Close() error {
	err := f.l.Close()
	f.mu.Lock()
	f.closed = true
	for c := range f.open {
		_ = c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
	return err
}

// Addr is the address the forwarder listens on (its port when asked for
// port 0).
func (f *Forwarder) Addr() net.Addr { return f.l.Addr() }
