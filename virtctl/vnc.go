package virtctl

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
)

// viewers are the VNC clients virtctl knows how to launch, in the order
// upstream tries them.
var viewers = []struct {
	bin  string
	args func(port int) []string
}{
	{"remote-viewer", func(p int) []string { return []string{fmt.Sprintf("vnc://127.0.0.1:%d", p)} }},
	{"vncviewer", func(p int) []string { return []string{fmt.Sprintf("127.0.0.1:%d", p)} }},
}

// vnc proxies a local TCP port to the VMI's VNC display, for one viewer
// session: it launches a viewer found in $PATH, or with --proxy-only
// prints the port as JSON for a viewer the user starts.
func (c *command) vnc(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "screenshot" {
		return c.vncScreenshot(ctx, args[1:])
	}
	fs := flag.NewFlagSet("vnc", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	port := fs.Int("port", 0, "local port to listen on (0 picks one)")
	proxyOnly := fs.Bool("proxy-only", false, "only proxy; print the port for a viewer of your choice")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	name, err := one("vnc", names)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("listening for a VNC viewer: %w", err)
	}
	defer ln.Close()
	p := ln.Addr().(*net.TCPAddr).Port
	if *proxyOnly {
		data, _ := json.Marshal(map[string]int{"port": p})
		fmt.Fprintln(c.out, string(data))
	} else if err := launchViewer(p); err != nil {
		fmt.Fprintf(c.out, "%v; connect a VNC viewer to 127.0.0.1:%d\n", err, p)
	}
	return c.proxyOne(ctx, ln, name)
}

// proxyOne serves the first viewer that connects and returns when either
// side closes, as upstream's proxy does.
func (c *command) proxyOne(ctx context.Context, ln net.Listener, name string) error {
	go func() { <-ctx.Done(); ln.Close() }()
	conn, err := ln.Accept()
	if err != nil {
		return fmt.Errorf("waiting for a VNC viewer: %w", err)
	}
	defer conn.Close()
	stream, err := OpenStream(ctx, c.config, c.namespace, name, "vnc")
	if err != nil {
		return err
	}
	defer stream.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, stream); done <- struct{}{} }()
	go func() { _, _ = io.Copy(stream, conn); done <- struct{}{} }()
	<-done
	return nil
}

func launchViewer(port int) error {
	for _, v := range viewers {
		bin, err := exec.LookPath(v.bin)
		if err != nil {
			continue
		}
		cmd := exec.Command(bin, v.args(port)...)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting %s: %w", v.bin, err)
		}
		go func() { _ = cmd.Wait() }()
		return nil
	}
	return fmt.Errorf("no VNC viewer (remote-viewer, vncviewer) found in $PATH")
}
