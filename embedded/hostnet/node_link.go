package hostnet

import (
	"context"
	"errors"
	"net/netip"
	"os"
)

// NodeLink is an isolated node's link to the host's "physical" bridge: a
// veth whose node end is eth0 in the node's network namespace, with the
// node's address and a default route through the host.
type NodeLink struct {
	// Netns is the node's network namespace, created when missing.
	Netns string
	// HostSide is the veth's name on the host.
	HostSide string
	// Bridge is the host bridge the node is plugged into.
	Bridge string
	// Address is the node's address on that bridge; Gateway the host's.
	Address netip.Prefix
	Gateway netip.Addr
}

// NodeInterface is the node end of the link.
const NodeInterface = "eth0"

// Ensure creates the namespace and the link, or completes them.
func (l NodeLink) Ensure(ctx context.Context) error {
	if _, err := os.Stat("/run/netns/" + l.Netns); errors.Is(err, os.ErrNotExist) {
		if _, err := Run(ctx, "ip", "netns", "add", l.Netns); err != nil {
			return err
		}
	}
	if _, err := Run(ctx, "ip", "link", "show", "dev", l.HostSide); err != nil {
		if _, err := Run(ctx, "ip", "link", "add", l.HostSide, "type", "veth", "peer", "name", NodeInterface, "netns", l.Netns); err != nil {
			return err
		}
	}
	steps := [][]string{
		{"link", "set", "dev", l.HostSide, "master", l.Bridge, "up"},
		{"-n", l.Netns, "link", "set", "dev", "lo", "up"},
		{"-n", l.Netns, "addr", "replace", l.Address.String(), "dev", NodeInterface},
		{"-n", l.Netns, "link", "set", "dev", NodeInterface, "up"},
		{"-n", l.Netns, "route", "replace", "default", "via", l.Gateway.String()},
	}
	for _, s := range steps {
		if _, err := Run(ctx, "ip", s...); err != nil {
			return err
		}
	}
	// The node routes for its pods, as a machine would.
	_, err := Run(ctx, "ip", "netns", "exec", l.Netns, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
	return err
}

// Remove deletes the namespace, its link with it; a missing one is fine.
func (l NodeLink) Remove(ctx context.Context) error {
	if _, err := os.Stat("/run/netns/" + l.Netns); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	_, err := Run(ctx, "ip", "netns", "del", l.Netns)
	return err
}

// Route sends prefix through via, replacing any route to it.
func Route(ctx context.Context, prefix netip.Prefix, via netip.Addr) error {
	_, err := Run(ctx, "ip", "route", "replace", prefix.String(), "via", via.String())
	return err
}
