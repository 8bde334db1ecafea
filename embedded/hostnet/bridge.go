// Package hostnet owns the embedded node's bridge, whose address is the
// node's IP (the kubelet refuses a loopback one) and the pods' gateway. IP
// forwarding, which the CNI bridge plugin turns on, is recorded and put
// back by the node itself (embedded/node), with the kernel settings the
// kubelet changes.
package hostnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
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
	return Run(ctx, "ip", args...)
}

// Run runs a command and returns its output; a failure carries its stderr.
func Run(ctx context.Context, name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
