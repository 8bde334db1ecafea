package migrationproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/virtflow/virtflow/node/unixsocket"
)

// Target accepts the source node's connections for one migration.
type Target struct {
	// Ports maps each listening TCP port to its stream, as the VMI's
	// migrationState.targetDirectMigrationNodePorts publishes them.
	Ports     map[string]int
	listeners []net.Listener
	wg        sync.WaitGroup
}

// ListenTarget listens with TLS on host (this node's migration address),
// on a free port per stream, and joins each accepted connection to that
// stream's unix socket in the target launcher pod. The TLS configuration
// must require and verify client certificates: a connection is a path
// into a guest's memory. onError hears what ends a connection badly.
func ListenTarget(host string, conf *tls.Config, sockets map[int]string, onError func(error)) (*Target, error) {
	if conf == nil || conf.ClientAuth != tls.RequireAndVerifyClientCert {
		return nil, errors.New("a migration target must require and verify client certificates")
	}
	t := &Target{Ports: map[string]int{}}
	for stream, socket := range sockets {
		l, err := tls.Listen("tcp", net.JoinHostPort(host, "0"), conf)
		if err != nil {
			_ = t.Close()
			return nil, fmt.Errorf("listening for stream %d: %w", stream, err)
		}
		t.listeners = append(t.listeners, l)
		t.Ports[strconv.Itoa(l.Addr().(*net.TCPAddr).Port)] = stream
		t.serve(l, func() (net.Conn, error) { return unixsocket.Dial(context.Background(), socket) }, onError)
	}
	return t, nil
}

// serve joins every connection l accepts to one dial makes, until l is
// closed.
func (t *Target) serve(l net.Listener, dial func() (net.Conn, error), onError func(error)) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		accept(l, dial, onError)
	}()
}

// Close stops listening; connections already joined run to their end.
func (t *Target) Close() error {
	var errs []error
	for _, l := range t.listeners {
		errs = append(errs, l.Close())
	}
	t.wg.Wait()
	return errors.Join(errs...)
}

// accept joins each accepted connection to a fresh dial until l closes.
func accept(l net.Listener, dial func() (net.Conn, error), onError func(error)) {
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			// Nothing is dialled for a peer that has not proved who it is:
			// TLS would otherwise hand-shake lazily, on the first read.
			if tc, ok := in.(*tls.Conn); ok {
				ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
				err := tc.HandshakeContext(ctx)
				cancel()
				if err != nil {
					_ = in.Close()
					onError(fmt.Errorf("migration stream from %s: %w", in.RemoteAddr(), err))
					return
				}
			}
			out, err := dial()
			if err != nil {
				_ = in.Close()
				onError(fmt.Errorf("migration stream from %s: %w", in.RemoteAddr(), err))
				return
			}
			if err := join(in, out); err != nil {
				onError(fmt.Errorf("migration stream from %s: %w", in.RemoteAddr(), err))
			}
		}()
	}
}
