package rawstream

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDialAndServeRelayBothWays(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		a, b := net.Pipe()
		go func() {
			buf := make([]byte, 64)
			n, _ := b.Read(buf)
			_, _ = b.Write(append([]byte("got:"), buf[:n]...))
			b.Close()
		}()
		Serve(w, a)
	})
	go func() { _ = http.Serve(l, mux) }()

	conn, err := Dial(context.Background(), "tcp", l.Addr().String(), "/console", map[string]string{"Authorization": "Bearer t"})
	require.NoError(t, err)
	_, err = conn.Write([]byte("hello"))
	require.NoError(t, err)
	out, err := io.ReadAll(conn)
	require.NoError(t, err)
	require.Equal(t, "got:hello", string(out))

	_, err = Dial(context.Background(), "tcp", l.Addr().String(), "/console", nil)
	var se *StatusError
	require.True(t, errors.As(err, &se))
	require.Equal(t, http.StatusUnauthorized, se.Code)
	require.Equal(t, "unauthorized", se.Message)
}
