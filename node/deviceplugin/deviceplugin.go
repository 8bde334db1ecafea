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

	"google.golang.org/grpc"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"

	"github.com/virtflow/virtflow/node/registrar"
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
	// KubeletRoot is the kubelet's root directory (--root-dir).
	KubeletRoot string
}

// Resource is the extended resource name pods request.
func (p *Plugin) Resource() string { return ResourcePrefix + p.Name }

func (p *Plugin) socket() string {
	return filepath.Join(p.KubeletRoot, "plugins", "kubevirt-"+p.Name, "device.sock")
}

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

// Run serves the plugin and announces it in the kubelet's plugin
// registry until ctx ends. The registry is under the kubelet's root
// directory, unlike the device-plugins directory the kubelet fixes at
// /var/lib/kubelet, so several kubelets on one host each find their own.
func (p *Plugin) Run(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(p.socket()), 0o750); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(p.socket()), err)
	}
	srv, err := p.serve()
	if err != nil {
		return err
	}
	defer srv.Stop()
	return registrar.Run(ctx, registrar.Config{
		DriverName: p.Resource(), Endpoint: p.socket(), RegistrationDir: filepath.Join(p.KubeletRoot, "plugins_registry"),
		Type: registerapi.DevicePlugin, Versions: []string{pluginapi.Version},
	})
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
