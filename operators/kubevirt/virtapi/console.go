package virtapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/gorilla/websocket"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/wire/rawstream"
)

// PlainStreamProtocol is the websocket subprotocol upstream virtctl speaks
// for consoles: binary frames carrying the raw serial bytes.
const PlainStreamProtocol = "plain.kubevirt.io"

// Streams virt-api relays from a VMI.
const (
	ConsoleStream = "console"
	VNCStream     = "vnc"
)

// Stream opens the VMI's serial console or VNC display through its node
// agent.
func (n *NodeAgents) Stream(ctx context.Context, ns, name, kind string) (io.ReadWriteCloser, error) {
	vmi, err := n.VMI(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if err := streamable(vmi, kind); err != nil {
		return nil, err
	}
	url, token, err := n.endpoint(ctx, vmi.Status.NodeName)
	if err != nil {
		return nil, err
	}
	path := fmt.Sprintf("/v1/namespaces/%s/virtualmachineinstances/%s/%s", ns, name, kind)
	raw, err := n.dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("reaching the node agent of %s: %w", vmi.Status.NodeName, err)
	}
	conn, err := rawstream.Open(raw, path, map[string]string{"Authorization": "Bearer " + token})
	var refused *rawstream.StatusError
	if errors.As(err, &refused) {
		return nil, vmiConflict(name, "%s", refused.Message)
	}
	if err != nil {
		return nil, fmt.Errorf("reaching the node agent of %s: %w", vmi.Status.NodeName, err)
	}
	return conn, nil
}

// streamable refuses a console or display upstream would refuse.
func streamable(vmi *kubevirtv1.VirtualMachineInstance, kind string) error {
	dev := vmi.Spec.Domain.Devices
	switch {
	case kind == ConsoleStream && dev.AutoattachSerialConsole != nil && !*dev.AutoattachSerialConsole:
		return badRequest("No serial consoles are present.")
	case kind == VNCStream && dev.AutoattachGraphicsDevice != nil && !*dev.AutoattachGraphicsDevice:
		return badRequest("No graphics devices are present.")
	case kind == ConsoleStream && vmi.Status.Phase == kubevirtv1.Failed:
		return vmiConflict(vmi.Name, "VMI is in failed status")
	case vmi.Status.Phase != kubevirtv1.Running:
		return badRequest("VMI is not running")
	}
	return nil
}

// StreamOpener opens VMI consoles and displays; NodeAgents implements it.
type StreamOpener interface {
	// Stream returns the VMI's serial console (ConsoleStream) or VNC
	// display (VNCStream) as a raw stream.
	Stream(ctx context.Context, ns, name, kind string) (io.ReadWriteCloser, error)
}

var upgrader = websocket.Upgrader{
	Subprotocols: []string{PlainStreamProtocol},
	// The aggregator, not a browser, connects here; origin is not meaningful.
	CheckOrigin: func(*http.Request) bool { return true },
}

// stream serves the console or vnc subresource as a websocket of binary
// frames, as upstream virtctl expects for both.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, kind string) {
	opener, ok := s.Nodes.(StreamOpener)
	if !ok {
		writeStatus(w, http.StatusNotImplemented, kind+" is not available")
		return
	}
	stream, err := opener.Stream(r.Context(), r.PathValue("ns"), r.PathValue("name"), kind)
	if err != nil {
		writeError(w, err)
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
