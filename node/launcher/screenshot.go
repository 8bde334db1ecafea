package launcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxScreenshot bounds a screenshot read from the launcher; a PNG of any
// real display is far smaller.
const maxScreenshot = 128 << 20

// screenshot answers with a PNG of the guest's primary display.
func (l *launcher) screenshot(w http.ResponseWriter, r *http.Request) {
	// Without a display libvirt only says there are no screens; say why.
	if l.cfg.vncSocket() == "" {
		http.Error(w, "No graphics devices are present.", http.StatusConflict)
		return
	}
	img, err := l.hv.Screenshot(r.Context(), l.name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(img)
}

// Screenshot returns a PNG of the guest's primary display.
func (c *Client) Screenshot(ctx context.Context) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://launcher/v1/screenshot", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking launcher at %s for a screenshot: %w", c.socket, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxScreenshot+1))
	if err != nil {
		return nil, fmt.Errorf("reading the screenshot from launcher at %s: %w", c.socket, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, errors.New(strings.TrimSpace(string(body)))
	}
	if len(body) > maxScreenshot {
		return nil, fmt.Errorf("the screenshot from launcher at %s exceeds %d bytes", c.socket, maxScreenshot)
	}
	return body, nil
}
