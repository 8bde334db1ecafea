// Package hostnet owns what the embedded node changes in the host's
// network: the node bridge, whose address is the node's IP (the kubelet
// refuses a loopback one) and the pods' gateway, and IP forwarding. It
// records what it changed so that stopping the platform can leave the host
// as it found it.
package hostnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
)

// Bridge is a Linux bridge with one address.
type Bridge struct {
	// Name is the interface name, e.g. virtflow0.
	Name string
	// Address is the bridge's address and the pod network's prefix, e.g.
	// 10.244.0.1/24.
	Address netip.Prefix
	// Netns runs everything in that named network namespace instead of the
	// host's (tests, and nodes of their own).
	Netns string
}

// Ensure creates the bridge with its address and brings it up; on an
// existing bridge it only adds what is missing. It reports whether it
// created the bridge.
func (b Bridge) Ensure(ctx context.Context) (bool, error) {
	if !b.Address.IsValid() || b.Name == "" {
		return false, errors.New("a bridge needs a name and an address")
	}
	created := false
	if _, err := b.ip(ctx, "link", "show", "dev", b.Name); err != nil {
		if _, err := b.ip(ctx, "link", "add", "name", b.Name, "type", "bridge"); err != nil {
			return false, err
		}
		created = true
	}
	if _, err := b.ip(ctx, "addr", "replace", b.Address.String(), "dev", b.Name); err != nil {
		return created, err
	}
	_, err := b.ip(ctx, "link", "set", "dev", b.Name, "up")
	return created, err
}

// Remove deletes the bridge; a missing one is fine.
func (b Bridge) Remove(ctx context.Context) error {
	if _, err := b.ip(ctx, "link", "show", "dev", b.Name); err != nil {
		return nil
	}
	_, err := b.ip(ctx, "link", "del", "dev", b.Name)
	return err
}

// Addresses lists the addresses the bridge has.
func (b Bridge) Addresses(ctx context.Context) ([]string, error) {
	out, err := b.ip(ctx, "-o", "addr", "show", "dev", b.Name)
	if err != nil {
		return nil, err
	}
	var addrs []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "inet" || f[i] == "inet6" {
				addrs = append(addrs, f[i+1])
			}
		}
	}
	return addrs, nil
}

func (b Bridge) ip(ctx context.Context, args ...string) (string, error) {
	if b.Netns != "" {
		args = append([]string{"-n", b.Netns}, args...)
	}
	return run(ctx, "ip", args...)
}

func run(ctx context.Context, name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// Forwarding turns IPv4 forwarding on (pods reach each other and the
// outside through the bridge) and returns a function that puts back what
// was there before.
func Forwarding(netns string) (restore func() error, err error) {
	const path = "/proc/sys/net/ipv4/ip_forward"
	read := func() (string, error) {
		if netns == "" {
			b, err := os.ReadFile(path)
			return strings.TrimSpace(string(b)), err
		}
		out, err := run(context.Background(), "ip", "netns", "exec", netns, "cat", path)
		return strings.TrimSpace(out), err
	}
	write := func(v string) error {
		if netns == "" {
			return os.WriteFile(path, []byte(v+"\n"), 0o644)
		}
		_, err := run(context.Background(), "ip", "netns", "exec", netns, "sysctl", "-q", "-w", "net.ipv4.ip_forward="+v)
		return err
	}
	before, err := read()
	if err != nil {
		return nil, fmt.Errorf("reading ip_forward: %w", err)
	}
	if err := write("1"); err != nil {
		return nil, fmt.Errorf("turning on ip_forward: %w", err)
	}
	return func() error { return write(before) }, nil
}
