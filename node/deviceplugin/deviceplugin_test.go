package deviceplugin

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

// kubelet records the registrations it receives.
type kubelet struct {
	pluginapi.UnimplementedRegistrationServer
	got chan *pluginapi.RegisterRequest
}

func (k *kubelet) Register(_ context.Context, r *pluginapi.RegisterRequest) (*pluginapi.Empty, error) {
	k.got <- r
	return &pluginapi.Empty{}, nil
}

func TestThePluginRegistersHandsOutTheDeviceAndRegistersAgainAfterAKubeletRestart(t *testing.T) {
	dir, err := os.MkdirTemp("", "dp")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	l, err := net.Listen("unix", filepath.Join(dir, "kubelet.sock"))
	require.NoError(t, err)
	k := &kubelet{got: make(chan *pluginapi.RegisterRequest, 4)}
	srv := grpc.NewServer()
	pluginapi.RegisterRegistrationServer(srv, k)
	go func() { _ = srv.Serve(l) }()
	defer srv.Stop()

	p := &Plugin{Name: "tun", Path: "/dev/null", Count: 3, Dir: dir}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = p.Run(ctx) }()
	reg := <-k.got
	require.Equal(t, "devices.kubevirt.io/tun", reg.ResourceName)
	require.Equal(t, "kubevirt-tun.sock", reg.Endpoint)
	require.Equal(t, pluginapi.Version, reg.Version)

	conn, err := grpc.NewClient("unix://"+filepath.Join(dir, reg.Endpoint), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	c := pluginapi.NewDevicePluginClient(conn)
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

	// A restarted kubelet clears the directory's sockets.
	require.NoError(t, os.Remove(filepath.Join(dir, reg.Endpoint)))
	select {
	case again := <-k.got:
		require.Equal(t, "devices.kubevirt.io/tun", again.ResourceName)
	case <-time.After(10 * time.Second):
		t.Fatal("the plugin did not register again")
	}
}
