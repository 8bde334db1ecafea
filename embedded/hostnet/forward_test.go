package hostnet

import (
	"bufio"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestForwardRelaysBothWaysAndCloseCutsConnections(t *testing.T) {
	backend, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer backend.Close()
	go func() {
		for {
			c, err := backend.Accept()
			if err != nil {
				return
			}
			go func() {
				line, _ := bufio.NewReader(c).ReadString('\n')
				_, _ = c.Write([]byte("echo " + line))
			}()
		}
	}()
	f, err := Forward("127.0.0.1:0", backend.Addr().String())
	require.NoError(t, err)
	c, err := net.Dial("tcp", f.l.Addr().String())
	require.NoError(t, err)
	_, err = c.Write([]byte("hello\n"))
	require.NoError(t, err)
	got, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "echo hello\n", got)

	idle, err := net.Dial("tcp", f.l.Addr().String())
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = bufio.NewReader(idle).ReadString('\n')
	require.Error(t, err, "a relayed connection outlived Close")
	_, err = net.Dial("tcp", f.l.Addr().String())
	require.Error(t, err)
}
