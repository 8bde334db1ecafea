package virtapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// PlainStreamProtocol is the websocket subprotocol upstream virtctl speaks
// for consoles: binary frames carrying the raw serial bytes.
const PlainStreamProtocol = "plain.kubevirt.io"

// Console opens the VMI's serial console through its node agent.
func (n *NodeAgents) Console(ctx context.Context, ns, name string) (io.ReadWriteCloser, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := n.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, vmi); err != nil {
		return nil, &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachineinstance.kubevirt.io %q not found", name)}
	}
	if vmi.Status.Phase != kubevirtv1.Running {
		return nil, &ActionError{Code: http.StatusBadRequest, Message: "Unable to connect to VirtualMachineInstance because phase is " + string(vmi.Status.Phase) + " instead of Running"}
	}
	url, token, err := n.endpoint(ctx, vmi.Status.NodeName)
	if err != nil {
		return nil, err
	}
	conn, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, "tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		return nil, fmt.Errorf("reaching the node agent of %s: %w", vmi.Status.NodeName, err)
	}
	fmt.Fprintf(conn, "GET /v1/namespaces/%s/virtualmachineinstances/%s/console HTTP/1.1\r\nHost: node\r\nAuthorization: Bearer %s\r\n\r\n", ns, name, token)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("opening console: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		conn.Close()
		return nil, conflict("%s", strings.TrimSpace(string(msg)))
	}
	return &readerConn{Conn: conn, r: br}, nil
}

type readerConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// ConsoleOpener opens VMI consoles; NodeAgents implements it.
type ConsoleOpener interface {
	// Console returns the VMI's serial console as a raw stream.
	Console(ctx context.Context, ns, name string) (io.ReadWriteCloser, error)
}

var upgrader = websocket.Upgrader{
	Subprotocols: []string{PlainStreamProtocol},
	// The aggregator, not a browser, connects here; origin is not meaningful.
	CheckOrigin: func(*http.Request) bool { return true },
}

func (s *Server) console(w http.ResponseWriter, r *http.Request) {
	opener, ok := s.Nodes.(ConsoleOpener)
	if !ok {
		writeStatus(w, http.StatusNotImplemented, "consoles are not available")
		return
	}
	stream, err := opener.Console(r.Context(), r.PathValue("ns"), r.PathValue("name"))
	if err != nil {
		code := http.StatusInternalServerError
		if ae, ok := err.(*ActionError); ok {
			code = ae.Code
		}
		writeStatus(w, code, err.Error())
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		stream.Close()
		return
	}
	bridge(ws, stream)
}

// bridge pumps websocket binary frames to the stream and back.
func bridge(ws *websocket.Conn, stream io.ReadWriteCloser) {
	done := make(chan struct{}, 2)
	go func() {
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				break
			}
			if _, err := stream.Write(data); err != nil {
				break
			}
		}
		done <- struct{}{}
	}()
	go func() {
		buf := make([]byte, 32*1024)
		for {
			n, err := stream.Read(buf)
			if n > 0 && ws.WriteMessage(websocket.BinaryMessage, buf[:n]) != nil {
				break
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}()
	<-done
	stream.Close()
	ws.Close()
}
