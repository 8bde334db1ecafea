package registrar

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// kubelet plays the kubelet's plugin watcher: it finds the socket, asks
// what it registers and reports its verdict.
func kubelet(t *testing.T, cfg Config) registerapi.RegistrationClient {
	t.Helper()
	require.Eventually(t, func() bool { return Healthy(cfg) == nil }, 5*time.Second, 10*time.Millisecond)
	conn, err := grpc.NewClient("unix://"+cfg.SocketPath(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return registerapi.NewRegistrationClient(conn)
}

// testConfig registers in a short directory: a unix socket path is limited
// to 108 bytes, and t.TempDir() paths carry the test's long name.
func testConfig(t *testing.T) Config {
	dir, err := os.MkdirTemp("", "reg")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return Config{DriverName: "kubevirt.io.hostpath-provisioner", Endpoint: "/var/lib/kubelet/plugins/csi-hostpath/csi.sock", RegistrationDir: dir}
}

func TestTheKubeletLearnsTheDriverAndItsSocket(t *testing.T) {
	cfg := testConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg) }()
	k := kubelet(t, cfg)
	info, err := k.GetInfo(ctx, &registerapi.InfoRequest{})
	require.NoError(t, err)
	require.Equal(t, registerapi.CSIPlugin, info.Type)
	require.Equal(t, "kubevirt.io.hostpath-provisioner", info.Name)
	require.Equal(t, "/var/lib/kubelet/plugins/csi-hostpath/csi.sock", info.Endpoint)
	require.Contains(t, info.SupportedVersions, "1.0.0")
	_, err = k.NotifyRegistrationStatus(ctx, &registerapi.RegistrationStatus{PluginRegistered: true})
	require.NoError(t, err)
	cancel()
	require.NoError(t, <-done)
	require.Error(t, Healthy(cfg), "the socket goes with the registrar")
}

func TestARefusedRegistrationEndsTheRegistrarWithTheReason(t *testing.T) {
	cfg := testConfig(t)
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), cfg) }()
	k := kubelet(t, cfg)
	_, err := k.NotifyRegistrationStatus(context.Background(), &registerapi.RegistrationStatus{PluginRegistered: false, Error: "unsupported version"})
	require.NoError(t, err)
	select {
	case err := <-done:
		require.ErrorContains(t, err, "the kubelet refused to register plugin kubevirt.io.hostpath-provisioner: unsupported version")
	case <-time.After(5 * time.Second):
		t.Fatal("the registrar kept running after the kubelet refused it")
	}
}

func TestRunNeedsItsSettings(t *testing.T) {
	require.ErrorContains(t, Run(context.Background(), Config{DriverName: "x"}), "needs a driver name, its endpoint")
}
