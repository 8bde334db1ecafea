// Package deviceplugin offers a host device to pods through the kubelet's
// device plugin API, as upstream virt-handler's permanent host device
// plugins do (devices.kubevirt.io/tun): launcher pods request the
// resource, the kubelet asks the plugin which device node to put in the
// container, and the scheduler places pods only where it is offered.
package deviceplugin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

// ResourcePrefix is the resource group of upstream's device plugins.
const ResourcePrefix = "devices.kubevirt.io/"

// Plugin offers one host device node under a resource name.
type Plugin struct {
	pluginapi.UnimplementedDevicePluginServer
	// Name is the device's short name (tun); the resource is
	// devices.kubevirt.io/<Name>.
	Name string
	// Path is the device node, the same on the host and in containers.
	Path string
	// Count is how many pods may hold it at once.
	Count int
	// Dir is the kubelet's device-plugins directory.
	Dir string
}

// Resource is the extended resource name pods request.
func (p *Plugin) Resource() string { return ResourcePrefix + p.Name }

func (p *Plugin) socket() string { return filepath.Join(p.Dir, "kubevirt-"+p.Name+".sock") }

// GetDevicePluginOptions says the plugin needs no pre-start call.
func (p *Plugin) GetDevicePluginOptions(context.Context, *pluginapi.Empty) (*pluginapi.DevicePluginOptions, error) {
	return &pluginapi.DevicePluginOptions{}, nil
}

// ListAndWatch sends the device list once: it never changes while the
// plugin runs.
func (p *Plugin) ListAndWatch(_ *pluginapi.Empty, s pluginapi.DevicePlugin_ListAndWatchServer) error {
	health := pluginapi.Healthy
	if _, err := os.Stat(p.Path); err != nil {
		health = pluginapi.Unhealthy
	}
	devs := make([]*pluginapi.Device, p.Count)
	for i := range devs {
		devs[i] = &pluginapi.Device{ID: fmt.Sprintf("%s%d", p.Name, i), Health: health}
	}
	if err := s.Send(&pluginapi.ListAndWatchResponse{Devices: devs}); err != nil {
		return fmt.Errorf("sending %s devices: %w", p.Name, err)
	}
	<-s.Context().Done()
	return nil
}

// Allocate puts the device node in each requesting container.
func (p *Plugin) Allocate(_ context.Context, req *pluginapi.AllocateRequest) (*pluginapi.AllocateResponse, error) {
	resp := &pluginapi.AllocateResponse{}
	for range req.ContainerRequests {
		resp.ContainerResponses = append(resp.ContainerResponses, &pluginapi.ContainerAllocateResponse{
			Devices: []*pluginapi.DeviceSpec{{HostPath: p.Path, ContainerPath: p.Path, Permissions: "rw"}},
		})
	}
	return resp, nil
}

// PreStartContainer is not used (GetDevicePluginOptions says so).
func (p *Plugin) PreStartContainer(context.Context, *pluginapi.PreStartContainerRequest) (*pluginapi.PreStartContainerResponse, error) {
	return &pluginapi.PreStartContainerResponse{}, nil
}

// Run serves the plugin and registers it with the kubelet until ctx ends.
// A kubelet that restarts removes the plugins' sockets: the plugin then
// serves and registers again, as the device plugin API expects.
func (p *Plugin) Run(ctx context.Context) error {
	for {
		srv, err := p.serve()
		if err != nil {
			return err
		}
		if err := p.register(ctx); err != nil {
			srv.Stop()
			return err
		}
		gone := p.waitSocketGone(ctx)
		srv.Stop()
		if !gone {
			return nil
		}
	}
}

func (p *Plugin) serve() (*grpc.Server, error) {
	if err := os.Remove(p.socket()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing stale %s: %w", p.socket(), err)
	}
	l, err := net.Listen("unix", p.socket())
	if err != nil {
		return nil, fmt.Errorf("serving device plugin %s: %w", p.Resource(), err)
	}
	srv := grpc.NewServer()
	pluginapi.RegisterDevicePluginServer(srv, p)
	go func() { _ = srv.Serve(l) }()
	return srv, nil
}

func (p *Plugin) register(ctx context.Context) error {
	kubelet := filepath.Join(p.Dir, "kubelet.sock")
	conn, err := grpc.NewClient("unix://"+kubelet, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("connecting to the kubelet at %s: %w", kubelet, err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = pluginapi.NewRegistrationClient(conn).Register(ctx, &pluginapi.RegisterRequest{
		Version: pluginapi.Version, Endpoint: filepath.Base(p.socket()), ResourceName: p.Resource(),
	}, grpc.WaitForReady(true))
	if err != nil {
		return fmt.Errorf("registering %s with the kubelet: %w", p.Resource(), err)
	}
	return nil
}

// waitSocketGone returns true when the plugin's socket disappears, false
// when ctx ends first.
func (p *Plugin) waitSocketGone(ctx context.Context) bool {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			if _, err := os.Stat(p.socket()); errors.Is(err, os.ErrNotExist) {
				return true
			}
		}
	}
}
