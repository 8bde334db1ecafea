package virtapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// maxScreenshot bounds the PNG read from a node agent; any real display's
// is far smaller.
const maxScreenshot = 128 << 20

// Screenshotter takes PNG screenshots of VMI displays; NodeAgents
// implements it.
type Screenshotter interface {
	// Screenshot returns a PNG of the VMI's primary display.
	Screenshot(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) ([]byte, error)
}

// Screenshot asks the VMI's node agent for a PNG of its display.
func (n *NodeAgents) Screenshot(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) ([]byte, error) {
	resp, err := n.agentRequest(ctx, vmi, http.MethodGet, "vnc/screenshot", nil, http.StatusOK)
	if err != nil {
		return nil, withoutInternalPrefix(err)
	}
	defer resp.Body.Close()
	img, err := io.ReadAll(io.LimitReader(resp.Body, maxScreenshot+1))
	if err != nil {
		return nil, fmt.Errorf("reading the screenshot of %s from its node agent: %w", vmi.Name, err)
	}
	if len(img) > maxScreenshot {
		return nil, fmt.Errorf("the screenshot of %s exceeds %d bytes", vmi.Name, maxScreenshot)
	}
	return img, nil
}

// withoutInternalPrefix drops "Internal error occurred: " from an agent
// failure: upstream's GET handlers pass virt-handler's error on as it is,
// unlike its PUT handlers, which wrap it as an internal error.
func withoutInternalPrefix(err error) error {
	var ae *ActionError
	if errors.As(err, &ae) && ae.Code == http.StatusInternalServerError {
		return errors.New(strings.TrimPrefix(ae.Message, "Internal error occurred: "))
	}
	return err
}

// screenshot serves vnc/screenshot: the PNG bytes, or, like upstream's,
// a plain-text 500 carrying the message whatever went wrong. Upstream
// declares a moveCursor parameter but never acts on it; it is ignored.
func (s *Server) screenshot(w http.ResponseWriter, r *http.Request) {
	img, err := s.takeScreenshot(r.Context(), r.PathValue("ns"), r.PathValue("name"))
	if err != nil {
		msg := err.Error()
		var ae *ActionError
		if errors.As(err, &ae) {
			msg = ae.Message
		}
		plainError(w, msg)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(img)
}

func (s *Server) takeScreenshot(ctx context.Context, ns, name string) ([]byte, error) {
	vmi, err := s.Nodes.VMI(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if err := streamable(vmi, VNCStream); err != nil {
		return nil, err
	}
	shooter, ok := s.Nodes.(Screenshotter)
	if !ok {
		return nil, errors.New("vnc/screenshot is not available")
	}
	return shooter.Screenshot(ctx, vmi)
}

// plainError writes msg as a text 500 without the newline http.Error
// adds, as go-restful's WriteErrorString does upstream.
func plainError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = io.WriteString(w, msg)
}
