package unixsocket

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestASocketBeyondTheAddressLimitIsCreatedReachedAndRemoved(t *testing.T) {
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	require.NoError(t, os.MkdirAll(deep, 0o755))
	path := filepath.Join(deep, "x.sock")
	require.Greater(t, len(path), MaxPath)
	l, err := Listen(path)
	require.NoError(t, err)
	go func() {
		if c, err := l.Accept(); err == nil {
			_, _ = c.Write([]byte("hello"))
			c.Close()
		}
	}()
	c, err := Dial(context.Background(), path)
	require.NoError(t, err)
	got, err := io.ReadAll(c)
	require.NoError(t, err)
	require.Equal(t, "hello", string(got))
	c.Close()
	_, err = os.Stat(path)
	require.NoError(t, err, "the socket is where its path says")
	require.NoError(t, l.Close())
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "and goes with its listener")
}
