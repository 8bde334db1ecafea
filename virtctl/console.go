package virtctl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/gorilla/websocket"
	"golang.org/x/term"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// escapeByte (Ctrl+]) ends a console session, as in upstream virtctl.
const escapeByte = 0x1d

// OpenStream connects to a VMI's serial console ("console") or VNC display
// ("vnc") through the API server's aggregated subresources.kubevirt.io API,
// as a raw byte stream.
func OpenStream(ctx context.Context, cfg *rest.Config, ns, name, kind string) (io.ReadWriteCloser, error) {
	s, err := openWebsocket(ctx, cfg, fmt.Sprintf("/apis/subresources.kubevirt.io/v1/namespaces/%s/virtualmachineinstances/%s/%s", ns, name, kind))
	if err != nil {
		return nil, fmt.Errorf("can't access VMI %s: %w", name, err)
	}
	return s, nil
}

// openWebsocket dials path on the API server with the plain.kubevirt.io
// subprotocol virt-api's streams speak; a refusal is reported with the
// message of the Status the server answered.
func openWebsocket(ctx context.Context, cfg *rest.Config, path string) (*wsStream, error) {
	u, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("parsing API server address %q: %w", cfg.Host, err)
	}
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path = path
	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building TLS config: %w", err)
	}
	dialer := websocket.Dialer{TLSClientConfig: tlsCfg, Subprotocols: []string{"plain.kubevirt.io"}}
	header := http.Header{}
	if cfg.BearerToken != "" {
		header.Set("Authorization", "Bearer "+cfg.BearerToken)
	}
	if cfg.Impersonate.UserName != "" {
		header.Set("Impersonate-User", cfg.Impersonate.UserName)
	}
	ws, resp, err := dialer.DialContext(ctx, u.String(), header)
	if err != nil {
		if resp != nil {
			body, _ := io.ReadAll(resp.Body)
			return nil, errors.New(strings.TrimSpace(statusMessage(body, resp.Status)))
		}
		return nil, err
	}
	return &wsStream{ws: ws}, nil
}

// wsStream reads and writes binary websocket frames as a byte stream.
type wsStream struct {
	ws      *websocket.Conn
	pending []byte
}

func (s *wsStream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		_, data, err := s.ws.ReadMessage()
		if err != nil {
			return 0, io.EOF
		}
		s.pending = data
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func (s *wsStream) Write(p []byte) (int, error) {
	if err := s.ws.WriteMessage(websocket.BinaryMessage, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (s *wsStream) Close() error { return s.ws.Close() }

// console attaches the terminal to the VMI's serial console until the
// escape sequence or the end of the stream.
func (c *command) console(ctx context.Context, args []string) error {
	name, err := one("console", args)
	if err != nil {
		return err
	}
	stream, err := OpenStream(ctx, c.config, c.namespace, name, "console")
	if err != nil {
		return err
	}
	defer stream.Close()
	fmt.Fprintf(c.out, "Successfully connected to %s console. The escape sequence is ^]\n", name)
	if fd := int(os.Stdin.Fd()); term.IsTerminal(fd) {
		state, err := term.MakeRaw(fd)
		if err == nil {
			defer term.Restore(fd, state)
		}
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(c.out, stream); done <- struct{}{} }()
	go func() { copyUntilEscape(stream, os.Stdin); done <- struct{}{} }()
	<-done
	return nil
}

func copyUntilEscape(dst io.Writer, src io.Reader) {
	buf := make([]byte, 1024)
	for {
		n, err := src.Read(buf)
		for i := 0; i < n; i++ {
			if buf[i] == escapeByte {
				_, _ = dst.Write(buf[:i])
				return
			}
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// statusMessage extracts the message of a metav1.Status error body.
func statusMessage(body []byte, fallback string) string {
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Message != "" {
		return st.Message
	}
	return fallback
}
