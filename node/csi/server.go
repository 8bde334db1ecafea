package csi

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
)

// stopGrace bounds how long stop waits for in-flight RPCs, so a stuck mount
// call cannot hang the agent's shutdown forever.
const stopGrace = 10 * time.Second

// Start serves the driver over gRPC on the unix socket at socket (a path,
// optionally written as "unix://path" like kubelet's --csi-address). It
// returns once the socket accepts connections; stop ends serving, waits
// briefly for in-flight RPCs and removes the socket. stop may be called more
// than once.
func (d *Driver) Start(socket string) (stop func(), err error) {
	path := strings.TrimPrefix(socket, "unix://")
	if path == "" {
		return nil, fmt.Errorf("csi socket path is empty")
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("creating csi socket directory: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening on csi socket %s: %w", path, err)
	}
	srv := grpc.NewServer()
	csi.RegisterIdentityServer(srv, d)
	csi.RegisterControllerServer(srv, d)
	csi.RegisterNodeServer(srv, d)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // only returns once stopped or the listener dies
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			gracefulStop(srv)
			<-done
			_ = os.Remove(path)
		})
	}, nil
}

// removeStaleSocket deletes a socket left by a previous run, which would
// otherwise make listen fail with "address already in use"; anything that is
// not a socket is left alone, since the path may simply be wrong.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking csi socket %s: %w", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("csi socket path %s exists and is not a socket", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("removing stale csi socket %s: %w", path, err)
	}
	return nil
}

// gracefulStop lets in-flight RPCs finish, but not for longer than stopGrace.
func gracefulStop(srv *grpc.Server) {
	finished := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(stopGrace):
		srv.Stop()
		<-finished
	}
}
