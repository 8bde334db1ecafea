// Package unixsocket reaches unix sockets whose paths are longer than a
// socket address allows: the node agent sees a launcher pod's sockets
// under the kubelet's pod volumes, deep in the node's filesystem. Such a
// path is used through a descriptor of its directory, whose /proc/self/fd
// name is short.
package unixsocket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// MaxPath is what fits a unix socket address with its terminator.
const MaxPath = 107

// Dial connects to the socket at path, however long.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	var conn net.Conn
	err := short(path, func(addr string) (err error) {
		conn, err = d.DialContext(ctx, "unix", addr)
		return err
	})
	return conn, err
}

// Listen creates the socket at path, however long. Closing the listener
// removes the socket.
func Listen(path string) (net.Listener, error) {
	var l net.Listener
	err := short(path, func(addr string) (err error) {
		l, err = net.Listen("unix", addr)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(path) > MaxPath {
		// The listener would remove the /proc name, gone by then.
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		return &removing{Listener: l, path: path}, nil
	}
	return l, nil
}

// short calls use with an address for path that fits a socket address.
func short(path string, use func(addr string) error) error {
	if len(path) <= MaxPath {
		return use(path)
	}
	fd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening socket directory %s: %w", filepath.Dir(path), err)
	}
	defer unix.Close(fd)
	return use(fmt.Sprintf("/proc/self/fd/%d/%s", fd, filepath.Base(path)))
}

// removing removes its socket by its real path when closed.
type removing struct {
	net.Listener
	path string
}

func (r *removing) Close() error {
	err := r.Listener.Close()
	if rmErr := os.Remove(r.path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		err = errors.Join(err, rmErr)
	}
	return err
}
