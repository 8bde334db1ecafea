package deviceplugin

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

func dial(t *testing.T, path string) *grpc.ClientConn {
	conn, err := grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestTheKubeletFindsThePluginInItsRegistryAndGetsTheDevice plays the
// kubelet: it finds the registration socket, asks what it announces, and
// allocates the device through the endpoint it names.
func TestTheKubeletFindsThePluginInItsRegistryAndGetsTheDevice(t *testing.T) {
	root, err := os.MkdirTemp("", "kl")
	require.NoError(t, err)
	defer os.RemoveAll(root)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plugins_registry"), 0o755))
	p := &Plugin{Name: "tun", Path: "/dev/null", Count: 3, KubeletRoot: root}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = p.Run(ctx) }()

	sock := filepath.Join(root, "plugins_registry", "devices.kubevirt.io_tun-reg.sock")
	require.Eventually(t, func() bool {
		_, err := os.Stat(sock)
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)
	info, err := registerapi.NewRegistrationClient(dial(t, sock)).GetInfo(ctx, &registerapi.InfoRequest{})
	require.NoError(t, err)
	require.Equal(t, registerapi.DevicePlugin, info.Type)
	require.Equal(t, "devices.kubevirt.io/tun", info.Name)
	require.Equal(t, []string{pluginapi.Version}, info.SupportedVersions)

	c := pluginapi.NewDevicePluginClient(dial(t, info.Endpoint))
	stream, err := c.ListAndWatch(ctx, &pluginapi.Empty{})
	require.NoError(t, err)
	list, err := stream.Recv()
	require.NoError(t, err)
	require.Len(t, list.Devices, 3)
	require.Equal(t, pluginapi.Healthy, list.Devices[0].Health)
	resp, err := c.Allocate(ctx, &pluginapi.AllocateRequest{ContainerRequests: []*pluginapi.ContainerAllocateRequest{{DevicesIds: []string{"tun0"}}}})
	require.NoError(t, err)
	require.Equal(t, "/dev/null", resp.ContainerResponses[0].Devices[0].HostPath)
	require.Equal(t, "/dev/null", resp.ContainerResponses[0].Devices[0].ContainerPath)
	require.Equal(t, "rw", resp.ContainerResponses[0].Devices[0].Permissions)
}
