// Package registrar registers a CSI driver or a device plugin with the kubelet's plugin
// watcher, the job upstream's node-driver-registrar sidecar does (its
// module cannot be had here): it serves the kubelet's plugin-registration
// API on <registration dir>/<driver>-reg.sock, where the kubelet finds it,
// asks which driver it announces and at which socket, and reports whether
// registration worked. The kubelet then talks to the driver itself to
// stage and publish volumes.
package registrar

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/grpc"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// Config names the driver and where the kubelet finds things.
type Config struct {
	// DriverName is the CSI driver's name, e.g. kubevirt.io.hostpath-provisioner.
	DriverName string
	// Endpoint is the driver's socket path as the kubelet sees it (on the
	// host), e.g. /var/lib/kubelet/plugins/<driver>/csi.sock.
	Endpoint string
	// RegistrationDir is the kubelet's plugins_registry directory.
	RegistrationDir string
	// Type is the plugin's kind, CSIPlugin when empty; DevicePlugin for a
	// device plugin, which the kubelet also finds this way.
	Type string
	// Versions are the plugin API versions served; CSI's 1.0.0 when empty.
	Versions []string
}

// SocketPath is where the registration socket is served.
func (c Config) SocketPath() string {
	// A device plugin's resource name has a slash.
	return filepath.Join(c.RegistrationDir, strings.ReplaceAll(c.DriverName, "/", "_")+"-reg.sock")
}

// server answers the kubelet; a refused registration ends Run with the
// kubelet's reason, so the sidecar's container restarts and tries again,
// as upstream's does.
type server struct {
	registerapi.UnimplementedRegistrationServer
	cfg     Config
	refused chan error
}

// GetInfo announces the driver.
func (s *server) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	typ, versions := s.cfg.Type, s.cfg.Versions
	if typ == "" {
		typ = registerapi.CSIPlugin
	}
	if len(versions) == 0 {
		versions = []string{"1.0.0"}
	}
	return &registerapi.PluginInfo{Type: typ, Name: s.cfg.DriverName, Endpoint: s.cfg.Endpoint, SupportedVersions: versions}, nil
}

// NotifyRegistrationStatus receives the kubelet's verdict.
func (s *server) NotifyRegistrationStatus(_ context.Context, st *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	if !st.PluginRegistered {
		select {
		case s.refused <- fmt.Errorf("the kubelet refused to register plugin %s: %s", s.cfg.DriverName, st.Error):
		default:
		}
	}
	return &registerapi.RegistrationStatusResponse{}, nil
}

// Run serves the registration socket until ctx ends or the kubelet refuses
// the driver; the socket is removed when it returns.
func Run(ctx context.Context, cfg Config) error {
	if cfg.DriverName == "" || cfg.Endpoint == "" || cfg.RegistrationDir == "" {
		return errors.New("the registrar needs a driver name, its endpoint and the kubelet's registration directory")
	}
	path := cfg.SocketPath()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing stale registration socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("listening on registration socket %s: %w", path, err)
	}
	defer os.Remove(path)
	srv := grpc.NewServer()
	s := &server{cfg: cfg, refused: make(chan error, 1)}
	registerapi.RegisterRegistrationServer(srv, s)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	// Graceful: the kubelet gets its answer before a refusal ends Run.
	defer srv.GracefulStop()
	select {
	case <-ctx.Done():
		return nil
	case err := <-s.refused:
		return err
	case err := <-served:
		return fmt.Errorf("serving registration socket %s: %w", path, err)
	}
}

// Healthy reports whether the registration socket is there to be found, as
// the sidecar's liveness check.
func Healthy(cfg Config) error {
	st, err := os.Stat(cfg.SocketPath())
	if err != nil {
		return fmt.Errorf("registration socket: %w", err)
	}
	if st.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s is not a socket", cfg.SocketPath())
	}
	return nil
}
