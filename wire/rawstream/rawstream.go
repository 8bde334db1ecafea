// Package rawstream carries a console as raw bytes over an HTTP connection
// that is taken over after a 200 response: the launcher serves its serial
// console this way to the node agent, and the node agent to virt-api.
package rawstream

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// Dial connects to addr on network, sends GET path with the headers and
// returns the connection positioned after a 200 response.
func Dial(ctx context.Context, network, addr, path string, headers map[string]string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	return Open(conn, path, headers)
}

// Open sends GET path with the headers on conn and returns it positioned
// after a 200 response; conn is closed on failure.
func Open(conn net.Conn, path string, headers map[string]string) (net.Conn, error) {
	var req strings.Builder
	fmt.Fprintf(&req, "GET %s HTTP/1.1\r\nHost: stream\r\n", path)
	for k, v := range headers {
		fmt.Fprintf(&req, "%s: %s\r\n", k, v)
	}
	req.WriteString("\r\n")
	if _, err := io.WriteString(conn, req.String()); err != nil {
		conn.Close()
		return nil, fmt.Errorf("requesting %s: %w", path, err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		conn.Close()
		return nil, &StatusError{Code: resp.StatusCode, Message: strings.TrimSpace(string(msg))}
	}
	return &bufferedConn{Conn: conn, r: br}, nil
}

// StatusError is a refusal from the serving side.
type StatusError struct {
	Code    int
	Message string
}

func (e *StatusError) Error() string { return e.Message }

// bufferedConn reads first what the response parser already buffered.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// Serve answers 200 on the hijacked connection and relays it to stream
// both ways until either side closes, then closes both.
func Serve(w http.ResponseWriter, stream io.ReadWriteCloser) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		stream.Close()
		http.Error(w, "the connection cannot be taken over: "+err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n")
	_ = buf.Flush()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(stream, buf); done <- struct{}{} }()
	go func() { _, _ = io.Copy(conn, stream); done <- struct{}{} }()
	<-done
	stream.Close()
	conn.Close()
}
