package csi

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func TestStartServesAndStopRemovesSocket(t *testing.T) {
	d, base := newTestDriver(t)
	socket := filepath.Join(base, "run", "csi.sock")
	// A socket left by a crashed run must not block the next start.
	stale, err := net.Listen("unix", filepath.Join(base, "stale.sock"))
	require.NoError(t, err)
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	require.NoError(t, stale.Close())
	require.NoError(t, os.MkdirAll(filepath.Dir(socket), 0o750))
	require.NoError(t, os.Rename(filepath.Join(base, "stale.sock"), socket))

	stop, err := d.Start("unix://" + socket)
	require.NoError(t, err)
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	info, err := csi.NewIdentityClient(conn).GetPluginInfo(context.Background(), &csi.GetPluginInfoRequest{})
	require.NoError(t, err)
	assert.Equal(t, DriverName, info.GetName())
	assert.Equal(t, "test", info.GetVendorVersion())

	stop()
	stop() // must be safe to repeat
	assert.NoFileExists(t, socket)
}

func TestStartRefusesToReplaceOtherFiles(t *testing.T) {
	d, base := newTestDriver(t)
	path := filepath.Join(base, "not-a-socket")
	require.NoError(t, os.WriteFile(path, []byte("keep me"), 0o600))
	_, err := d.Start(path)
	require.Error(t, err)
	assert.FileExists(t, path)
}
