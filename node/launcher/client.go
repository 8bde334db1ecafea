package launcher

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/unixsocket"
	"github.com/virtflow/virtflow/wire/rawstream"
)

// Client talks to a launcher's command socket.
type Client struct {
	socket string
	http   *http.Client
}

// NewClient returns a client for the launcher in dir.
func NewClient(dir string) *Client { return NewClientAt(Socket(dir)) }

// NewClientAt returns a client for the launcher serving socket, which may
// be longer than a socket address can be (a pod's volume on the node).
func NewClientAt(socket string) *Client {
	return &Client{socket: socket, http: &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return unixsocket.Dial(ctx, socket)
		}},
	}}
}

// dialSocket connects to a launcher's socket, however deep under the
// kubelet's pod volumes.
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	return unixsocket.Dial(ctx, path)
}

// Status returns the domain's current status.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var st Status
	return st, c.getJSON(ctx, "status", &st)
}

// GuestInfo asks the guest agent, through the launcher, about the guest.
func (c *Client) GuestInfo(ctx context.Context) (libvirt.GuestInfo, error) {
	var gi libvirt.GuestInfo
	return gi, c.getJSON(ctx, "guestinfo", &gi)
}

// getJSON decodes GET /v1/<what>; a refusal's body is the error.
func (c *Client) getJSON(ctx context.Context, what string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://launcher/v1/"+what, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("asking launcher at %s for %s: %w", c.socket, what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return errors.New(strings.TrimSpace(string(msg)))
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Command sends pause, unpause, softreboot, reset, unfreeze, shutdown or
// destroy.
func (c *Client) Command(ctx context.Context, verb string) error { return c.Send(ctx, verb, nil) }

// Send sends a command with a JSON body (freeze takes its timeout so).
func (c *Client) Send(ctx context.Context, verb string, body []byte) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "http://launcher/v1/"+verb, rd)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("sending %s to launcher: %w", verb, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s", verb, strings.TrimSpace(string(msg)))
	}
	return nil
}

// Migrate starts the live migration of the launcher's domain, named id
// (its VMIM's UID) in the status.
func (c *Client) Migrate(ctx context.Context, id string, o libvirt.MigrateOptions) error {
	body, err := json.Marshal(MigrateRequest{ID: id, MigrateOptions: o})
	if err != nil {
		return err
	}
	return c.Send(ctx, "migrate", body)
}

// Migration reports the launcher's outgoing migration.
func (c *Client) Migration(ctx context.Context) (MigrationStatus, error) {
	var st MigrationStatus
	return st, c.getJSON(ctx, "migration", &st)
}

// Streams a launcher serves.
const (
	ConsoleStream = "console"
	VNCStream     = "vnc"
)

// Stream opens the serial console or the VNC display as a raw
// bidirectional stream.
func (c *Client) Stream(ctx context.Context, kind string) (net.Conn, error) {
	raw, err := unixsocket.Dial(ctx, c.socket)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", kind, err)
	}
	conn, err := rawstream.Open(raw, "/v1/"+kind, nil)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", kind, err)
	}
	return conn, nil
}
