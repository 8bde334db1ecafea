package launcher

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/podnet"
)

// passtBinary is passt as Debian installs it in the launcher image.
var passtBinary = "passt"

// passtStartTimeout bounds the wait for passt's socket.
const passtStartTimeout = 10 * time.Second

// startPasst runs passt, unprivileged in the pod's network namespace, for
// each passt interface and records the socket its guest device connects
// to. libvirt 9.0 cannot start passt itself (its passt backend came in
// 9.2), so the launcher does, and qemu reaches it with `-netdev stream`.
// passt ends with ctx.
func startPasst(ctx context.Context, cfg *Config) error {
	for i := range cfg.Network.Interfaces {
		iface := &cfg.Network.Interfaces[i]
		if iface.Binding != podnet.Passt {
			continue
		}
		socket := filepath.Join(cfg.Dir, "passt-"+iface.Name+".sock")
		_ = os.Remove(socket)
		tcp, udp := passtPortSpecs(iface.Ports)
		args := passtArgs(*iface, socket, filepath.Join(cfg.Dir, "passt-"+iface.Name+".log"), tcp, udp)
		cmd := exec.CommandContext(ctx, passtBinary, args...)
		// Its banner (stdout) tells how to start qemu by hand; errors go to stderr and its log.
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting passt for interface %s: %w", iface.Name, err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if err := waitForSocket(socket, exited); err != nil {
			return fmt.Errorf("passt for interface %s: %w", iface.Name, err)
		}
		iface.Socket = socket
		logf("passt serves interface %s on %s (ports: tcp %s, udp %s)", iface.Name, socket, tcp, udp)
	}
	return nil
}

// waitForSocket waits until passt listens, or says why it never will.
func waitForSocket(socket string, exited <-chan error) error {
	deadline := time.After(passtStartTimeout)
	for {
		if _, err := os.Stat(socket); err == nil {
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("exited before listening (its log is in the launcher's directory): %w", err)
		case <-deadline:
			return fmt.Errorf("no socket %s after %s", socket, passtStartTimeout)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// passtArgs runs passt in the foreground on socket, forwarding tcp and
// udp (all ports when the interface lists none, as upstream's passt
// binding) and giving the guest the pod's MTU.
func passtArgs(iface podnet.Interface, socket, logFile, tcp, udp string) []string {
	args := []string{"--foreground", "--socket", socket, "--log-file", logFile, "--quiet", "-t", tcp, "-u", udp}
	if iface.MTU > 0 {
		args = append(args, "--mtu", strconv.Itoa(iface.MTU))
	}
	return args
}

// passtPortSpecs are passt's -t and -u arguments for the ports.
func passtPortSpecs(ports []kubevirtv1.Port) (tcp, udp string) {
	if len(ports) == 0 {
		return "all", "all"
	}
	var t, u []string
	for _, p := range ports {
		switch strings.ToLower(p.Protocol) {
		case "", "tcp":
			t = append(t, strconv.Itoa(int(p.Port)))
		case "udp":
			u = append(u, strconv.Itoa(int(p.Port)))
		default:
			logf("protocol %s is not supported by passt", p.Protocol)
		}
	}
	return specOrNone(t), specOrNone(u)
}

func specOrNone(ports []string) string {
	if len(ports) == 0 {
		return "none"
	}
	return strings.Join(ports, ",")
}
