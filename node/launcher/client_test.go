package launcher

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/node/unixsocket"
)

// A launcher pod's socket seen from the node is under the kubelet's pod
// volumes, deeper than a socket address allows; the client still reaches it.
func TestTheClientReachesASocketBeyondTheAddressLimit(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, strings.Repeat("d", 60), strings.Repeat("e", 60))
	require.NoError(t, os.MkdirAll(deep, 0o755))
	// Listening needs a short name too: from inside the directory.
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(deep))
	ln, err := net.Listen("unix", SocketFile)
	require.NoError(t, os.Chdir(wd))
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			_, _ = c.Write([]byte("hello"))
			c.Close()
		}
	}()

	path := filepath.Join(deep, SocketFile)
	require.Greater(t, len(path), unixsocket.MaxPath)
	conn, err := unixsocket.Dial(context.Background(), path)
	require.NoError(t, err)
	defer conn.Close()
	buf := make([]byte, 5)
	_, err = conn.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "hello", string(buf))
}
