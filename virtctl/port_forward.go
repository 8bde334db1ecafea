package virtctl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

const (
	protocolTCP = "tcp"
	protocolUDP = "udp"
)

// portForwardUsage is printed, as upstream prints its help, when the
// arguments are too few; it goes to stderr so a ProxyCommand's stream is
// never polluted.
const portForwardUsage = "Usage: virtctl port-forward type/name[/namespace] [protocol/]localPort[:targetPort]... [--address ADDR] [--stdio]\n"

// forwardedPort is one [protocol/]localPort[:targetPort] argument.
type forwardedPort struct {
	local, remote int
	protocol      string
}

// forwardTarget is the VM or VMI whose portforward subresource is used.
type forwardTarget struct {
	kind, namespace, name string
}

// path is the subresource's path for port on this target.
func (t forwardTarget) path(port forwardedPort) string {
	resource := "virtualmachineinstances"
	if t.kind == "vm" {
		resource = "virtualmachines"
	}
	return fmt.Sprintf("/apis/subresources.kubevirt.io/v1/namespaces/%s/%s/%s/portforward/%d/%s",
		t.namespace, resource, t.name, port.remote, port.protocol)
}

// portForward forwards local ports (or stdin and stdout, for ssh's
// ProxyCommand) to a VM's or VMI's ports through virt-api.
func (c *command) portForward(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("port-forward", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	stdio := fs.Bool("stdio", false, "forward the tunnel to stdin/stdout; only works with a single port")
	address := fs.String("address", "127.0.0.1", "the address the local ports should be opened on")
	namespaceFlags(fs, &c.namespace)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		fmt.Fprint(c.errOut, portForwardUsage)
		return errors.New("argument validation failed")
	}
	target, ports, err := c.forwardArgs(pos)
	if err != nil {
		return err
	}
	if *stdio {
		if len(ports) != 1 {
			return errors.New("only one port supported when forwarding to stdout")
		}
		return c.forwardStdio(ctx, target, ports[0])
	}
	ip, err := net.ResolveIPAddr("", *address)
	if err != nil {
		return fmt.Errorf("resolving --address %q: %w", *address, err)
	}
	return c.forwardPorts(ctx, target, ip, ports)
}

// forwardArgs parses the target and the ports; the namespace defaults
// to the client's.
func (c *command) forwardArgs(pos []string) (forwardTarget, []forwardedPort, error) {
	kind, namespace, name, err := parseForwardTarget(pos[0])
	if err != nil {
		return forwardTarget{}, nil, err
	}
	if namespace == "" {
		namespace = c.namespace
	}
	ports := make([]forwardedPort, 0, len(pos)-1)
	for _, arg := range pos[1:] {
		p, err := parsePort(arg)
		if err != nil {
			return forwardTarget{}, nil, err
		}
		ports = append(ports, p)
	}
	return forwardTarget{kind: kind, namespace: namespace, name: name}, ports, nil
}

// namespaceFlags lets -n follow the verb, as kubectl-style tools allow.
func namespaceFlags(fs *flag.FlagSet, ns *string) {
	fs.StringVar(ns, "namespace", *ns, "namespace")
	fs.StringVar(ns, "n", *ns, "namespace")
}

// parseForwardTarget reads type/name[/namespace], with upstream's
// messages.
func parseForwardTarget(target string) (kind, namespace, name string, err error) {
	if target == "" {
		return "", "", "", errors.New("target cannot be empty")
	}
	parts := strings.Split(target, "/")
	switch len(parts) {
	case 1:
		return "", "", "", errors.New("target must contain type and name separated by '/'")
	case 2:
		kind, name = parts[0], parts[1]
	case 3:
		kind, name, namespace = parts[0], parts[1], parts[2]
		if namespace == "" {
			return "", "", "", errors.New("namespace cannot be empty")
		}
	default:
		return "", "", "", errors.New("target is not valid with more than two '/'")
	}
	switch strings.ToLower(kind) {
	case "vm", "vms", "virtualmachine", "virtualmachines":
		kind = "vm"
	case "vmi", "vmis", "virtualmachineinstance", "virtualmachineinstances":
		kind = "vmi"
	default:
		return "", "", "", fmt.Errorf("unsupported resource type '%s'", kind)
	}
	if name == "" {
		return "", "", "", errors.New("name cannot be empty")
	}
	return kind, namespace, name, nil
}

// parsePort reads [protocol/]localPort[:targetPort]; the protocol
// defaults to tcp and the target port to the local one.
func parsePort(arg string) (forwardedPort, error) {
	port := forwardedPort{protocol: protocolTCP}
	if proto, rest, ok := strings.Cut(arg, "/"); ok {
		port.protocol, arg = proto, rest
	}
	fields := strings.FieldsFunc(arg, func(r rune) bool { return r == ':' })
	if len(fields) < 1 {
		return port, errors.New("invalid port, missing local and/or remote port")
	}
	var err error
	if port.local, err = strconv.Atoi(fields[0]); err != nil {
		return port, fmt.Errorf("parsing local port: %w", err)
	}
	port.remote = port.local
	if len(fields) > 1 {
		if port.remote, err = strconv.Atoi(fields[1]); err != nil {
			return port, fmt.Errorf("parsing target port: %w", err)
		}
	}
	return port, nil
}
