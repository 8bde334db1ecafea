package migrationproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/virtflow/virtflow/node/unixsocket"
)

// Owner is who must be able to connect to the source's sockets: the
// launcher's user, under which libvirt and QEMU run.
type Owner struct{ UID, GID int }

// Source serves one migration's streams in the source launcher pod.
type Source struct {
	listeners []net.Listener
	sockets   []string
	wg        sync.WaitGroup
}

// dialTimeout bounds a connection to the target node.
const dialTimeout = 10 * time.Second

// ListenSource creates under dir, for each port the target published
// (TCP port → stream), the stream's unix socket, owned by owner, and joins
// each connection made to it to targetHost at that port over TLS. The TLS
// configuration must carry this node's client certificate and verify the
// target's.
func ListenSource(dir, vmiUID, targetHost string, ports map[string]int, conf *tls.Config, owner Owner, onError func(error)) (*Source, error) {
	if conf == nil || len(conf.Certificates) == 0 && conf.GetClientCertificate == nil {
		return nil, errors.New("a migration source must present a client certificate")
	}
	s := &Source{}
	for port, stream := range ports {
		if _, err := strconv.Atoi(port); err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("the target published port %q for stream %d: %w", port, stream, err)
		}
		if err := s.listen(SocketPath(dir, vmiUID, stream), net.JoinHostPort(targetHost, port), conf, owner, onError); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	return s, nil
}

func (s *Source) listen(socket, target string, conf *tls.Config, owner Owner, onError func(error)) error {
	_ = os.Remove(socket) // a stale one, from a migration that did not clean up
	l, err := unixsocket.Listen(socket)
	if err != nil {
		return fmt.Errorf("creating %s: %w", socket, err)
	}
	s.listeners, s.sockets = append(s.listeners, l), append(s.sockets, socket)
	if owner.UID != 0 {
		if err := os.Chown(socket, owner.UID, owner.GID); err != nil {
			return fmt.Errorf("handing %s to uid %d: %w", socket, owner.UID, err)
		}
	}
	dialer := &tls.Dialer{NetDialer: &net.Dialer{Timeout: dialTimeout}, Config: conf}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		accept(l, func() (net.Conn, error) { return dialer.DialContext(context.Background(), "tcp", target) }, onError)
	}()
	return nil
}

// Close stops listening and removes the sockets; connections already
// joined run to their end.
func (s *Source) Close() error {
	var errs []error
	for _, l := range s.listeners {
		errs = append(errs, l.Close())
	}
	s.wg.Wait()
	for _, socket := range s.sockets {
		if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
