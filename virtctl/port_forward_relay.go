package virtctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
)

// udpBufSize holds the largest datagram, so one read is one datagram and
// one websocket frame.
const udpBufSize = 64 * 1024

// openForward opens one websocket to the target's port.
func (c *command) openForward(ctx context.Context, t forwardTarget, port forwardedPort) (*wsStream, error) {
	return openWebsocket(ctx, c.config, t.path(port))
}

// forwardStdio relays stdin and stdout to one port until either side ends,
// as ssh's ProxyCommand needs.
func (c *command) forwardStdio(ctx context.Context, t forwardTarget, port forwardedPort) error {
	stream, err := c.openForward(ctx, t, port)
	if err != nil {
		return err
	}
	defer stream.Close()
	return relay(stream, c.in, c.out)
}

// relay copies in to the stream and the stream to out, and returns when
// either direction ends: the first error, or nil at an end of stream.
func relay(stream io.ReadWriter, in io.Reader, out io.Writer) error {
	errs := make(chan error, 2)
	go func() { _, err := io.Copy(stream, in); errs <- err }()
	go func() { _, err := io.Copy(out, stream); errs <- err }()
	return <-errs
}

// forwardPorts listens on every local port, then serves them until ctx
// ends (the user's interrupt).
func (c *command) forwardPorts(ctx context.Context, t forwardTarget, ip *net.IPAddr, ports []forwardedPort) error {
	var closers []io.Closer
	defer func() {
		for _, cl := range closers {
			_ = cl.Close()
		}
	}()
	for _, port := range ports {
		fmt.Fprintf(c.errOut, "forwarding %s %s:%d to %d\n", port.protocol, ip, port.local, port.remote)
		addr := net.JoinHostPort(ip.String(), strconv.Itoa(port.local))
		switch port.protocol {
		case protocolTCP:
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listening on %s: %w", addr, err)
			}
			closers = append(closers, ln)
			go c.serveTCP(ctx, ln, t, port)
		case protocolUDP:
			conn, err := net.ListenPacket("udp", addr)
			if err != nil {
				return fmt.Errorf("listening on %s: %w", addr, err)
			}
			closers = append(closers, conn)
			go c.serveUDP(ctx, conn, t, port)
		default:
			return errors.New("unknown protocol: " + port.protocol)
		}
	}
	<-ctx.Done()
	return nil
}

// serveTCP opens a websocket for each accepted connection and relays it
// until either side closes. A refused websocket costs only its connection:
// later ones are tried again.
func (c *command) serveTCP(ctx context.Context, ln net.Listener, t forwardTarget, port forwardedPort) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				fmt.Fprintf(c.errOut, "error accepting connection: %v\n", err)
			}
			return
		}
		stream, err := c.openForward(ctx, t, port)
		if err != nil {
			fmt.Fprintf(c.errOut, "can't access %s/%s.%s: %v\n", t.kind, t.name, t.namespace, err)
			_ = conn.Close()
			continue
		}
		go func() {
			defer conn.Close()
			defer stream.Close()
			if err := relay(stream, conn, conn); err != nil && !errors.Is(err, net.ErrClosed) {
				fmt.Fprintf(c.errOut, "error handling connection for %d: %v\n", port.local, err)
			}
		}()
	}
}

// serveUDP gives each local client address its own websocket: every
// datagram is one binary frame and every frame back one datagram.
func (c *command) serveUDP(ctx context.Context, conn net.PacketConn, t forwardTarget, port forwardedPort) {
	var mu sync.Mutex
	clients := map[string]*wsStream{}
	buf := make([]byte, udpBufSize)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				fmt.Fprintf(c.errOut, "error reading datagram: %v\n", err)
			}
			return
		}
		mu.Lock()
		stream, known := clients[from.String()]
		if !known {
			if stream, err = c.openForward(ctx, t, port); err != nil {
				mu.Unlock()
				fmt.Fprintf(c.errOut, "can't access %s/%s.%s: %v\n", t.kind, t.name, t.namespace, err)
				continue
			}
			clients[from.String()] = stream
			go func() {
				answerUDP(conn, from, stream)
				mu.Lock()
				delete(clients, from.String())
				mu.Unlock()
			}()
		}
		mu.Unlock()
		if _, err := stream.Write(buf[:n]); err != nil {
			// Closing ends answerUDP, which forgets the client: its next
			// datagram opens a new websocket.
			fmt.Fprintf(c.errOut, "error forwarding datagram from %s: %v\n", from, err)
			_ = stream.Close()
		}
	}
}

// answerUDP sends each frame from the VM back to the client as a datagram,
// until the websocket ends.
func answerUDP(conn net.PacketConn, to net.Addr, stream *wsStream) {
	defer stream.Close()
	buf := make([]byte, udpBufSize)
	for {
		n, err := stream.Read(buf)
		if err != nil {
			return
		}
		if _, err := conn.WriteTo(buf[:n], to); err != nil {
			return
		}
	}
}
