package virtctl

import (
	"context"
	"flag"
	"fmt"
	"strings"
)

// scpRemote is the [user@]type/name[/namespace]:path side of a copy.
type scpRemote struct {
	kind, namespace, name, username, path string
}

// scpFlags are what scp adds to the ssh options.
type scpFlags struct {
	recursive, preserve bool
}

// scp runs the local scp client with virtctl port-forward as its
// ProxyCommand; one of the two locations is on the VM.
func (c *command) scp(ctx context.Context, args []string) error {
	argv, err := c.scpArgv(args)
	if err != nil {
		return err
	}
	return c.runLocal(ctx, "scp", argv)
}

// scpArgv is the local scp client's argv for virtctl scp's args.
func (c *command) scpArgv(args []string) ([]string, error) {
	o := defaultSSHOptions()
	var f scpFlags
	fs := flag.NewFlagSet("scp", flag.ContinueOnError)
	addSSHFlags(fs, o)
	for _, name := range []string{"recursive", "r"} {
		fs.BoolVar(&f.recursive, name, false, "recursively copy entire directories")
	}
	fs.BoolVar(&f.preserve, "preserve", false, "preserve modification times, access times and modes")
	namespaceFlags(fs, &c.namespace)
	pos, err := parseSSHFlags(fs, o, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 2 {
		return nil, fmt.Errorf("accepts 2 arg(s), received %d", len(pos))
	}
	local, remote, toRemote, err := parseSCPTarget(pos[0], pos[1])
	if err != nil {
		return nil, err
	}
	if remote.namespace == "" {
		remote.namespace = c.namespace
	}
	if remote.username != "" {
		o.username = remote.username
	}
	target := scpArgs(o.username, local, remote, toRemote, f)
	return c.proxy().clientArgs(o, remote.kind, remote.namespace, remote.name, target), nil
}

// parseSCPTarget finds which of source and destination is on the VM (the
// one with a colon) and returns the local path, the remote side and
// whether the copy goes to the VM.
func parseSCPTarget(source, destination string) (string, *scpRemote, bool, error) {
	srcRemote, dstRemote := strings.Contains(source, ":"), strings.Contains(destination, ":")
	if srcRemote && dstRemote {
		return "", nil, false, fmt.Errorf("copying from a remote location to another remote location is not supported: %q to %q", source, destination)
	}
	if !srcRemote && !dstRemote {
		return "", nil, false, fmt.Errorf("none of the two provided locations seems to be a remote location: %q to %q", source, destination)
	}
	remoteArg, local := source, destination
	if dstRemote {
		remoteArg, local = destination, source
	}
	target, path, _ := strings.Cut(remoteArg, ":")
	r := &scpRemote{path: path}
	var err error
	if r.kind, r.namespace, r.name, r.username, err = parseSSHTarget(target); err != nil {
		return "", nil, false, err
	}
	return local, r, dstRemote, nil
}

// scpArgs is scp's own part of the argv: its flags, then source and
// destination with the VM as [user@]kind.name.namespace:path.
func scpArgs(username, local string, r *scpRemote, toRemote bool, f scpFlags) []string {
	var args []string
	if f.recursive {
		args = append(args, "-r")
	}
	if f.preserve {
		args = append(args, "-p")
	}
	remote := hostAlias(username, r.kind, r.name, r.namespace) + ":" + r.path
	if toRemote {
		return append(args, local, remote)
	}
	return append(args, remote, local)
}
