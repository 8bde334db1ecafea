package virtctl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/virtflow/virtflow/version"
)

func (c *command) run(ctx context.Context, verb string, args []string) error {
	switch verb {
	case "start", "restart":
		name, err := one(verb, args)
		if err != nil {
			return err
		}
		return c.report(c.put(ctx, "virtualmachines", name, verb, nil), "VM %s was scheduled to %s", name, verb)
	case "stop":
		return c.stop(ctx, args)
	case "migrate":
		return c.migrate(ctx, args)
	case "migrate-cancel":
		return c.migrateCancel(ctx, args)
	case "evacuate-cancel":
		return c.evacuateCancel(ctx, args)
	case "pause", "unpause":
		return c.pause(ctx, verb, args)
	case "version":
		return c.version(ctx)
	case "console":
		return c.console(ctx, args)
	case "vnc":
		return c.vnc(ctx, args)
	case "guestosinfo":
		return c.guestOSInfo(ctx, args)
	case "soft-reboot", "reset":
		return c.vmiVerb(ctx, verb, args)
	case "userlist", "fslist":
		return c.guestList(ctx, verb, args)
	case "expand":
		return c.expand(ctx, args)
	case "objectgraph":
		return c.objectGraph(ctx, args)
	case "expose":
		return c.expose(ctx, args)
	case "port-forward":
		return c.portForward(ctx, args)
	case "ssh":
		return c.ssh(ctx, args)
	case "scp":
		return c.scp(ctx, args)
	}
	return fmt.Errorf("unknown command %q\n%s", verb, usage)
}

func one(verb string, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("%s needs exactly one VirtualMachine name", verb)
	}
	return args[0], nil
}

func (c *command) stop(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	force := fs.Bool("force", false, "stop immediately, using --grace-period")
	grace := fs.Int64("grace-period", -1, "seconds the guest gets to shut down (with --force)")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	name, err := one("stop", names)
	if err != nil {
		return err
	}
	var body any
	if *grace >= 0 {
		if !*force {
			return errors.New("--grace-period must be used with --force")
		}
		body = map[string]any{"gracePeriod": *grace}
	}
	return c.report(c.put(ctx, "virtualmachines", name, "stop", body), "VM %s was scheduled to stop", name)
}

func (c *command) pause(ctx context.Context, verb string, args []string) error {
	if len(args) != 2 || (args[0] != "vm" && args[0] != "vmi") {
		return fmt.Errorf("usage: virtctl %s vm|vmi NAME", verb)
	}
	name := args[1]
	kind := "VMI"
	if args[0] == "vm" {
		kind = "VM"
	}
	return c.report(c.put(ctx, "virtualmachineinstances", name, verb, nil), "%s %s was scheduled to %s", kind, name, verb)
}

func (c *command) report(err error, format string, args ...any) error {
	if err != nil {
		var st apierrors.APIStatus
		if errors.As(err, &st) {
			return errors.New(st.Status().Message)
		}
		return err
	}
	fmt.Fprintf(c.out, format+"\n", args...)
	return nil
}

func (c *command) version(ctx context.Context) error {
	fmt.Fprintf(c.out, "Client Version: %#v\n", version.Get())
	raw, err := c.client.Get().AbsPath("/apis/subresources.kubevirt.io/v1/version").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("failed to get server version: %w", err)
	}
	var v version.Info
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("failed to get server version: %w", err)
	}
	fmt.Fprintf(c.out, "Server Version: %#v\n", v)
	return nil
}

// parseInterspersed accepts flags before and after positional arguments,
// as kubectl-style tools do.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) > 0 {
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	return pos, nil
}

// guestOSInfo prints what the VMI's guest agent reports, as indented JSON.
func (c *command) guestOSInfo(ctx context.Context, args []string) error {
	name, err := one("guestosinfo", args)
	if err != nil {
		return err
	}
	body, err := c.client.Get().AbsPath("/apis/subresources.kubevirt.io/v1/namespaces", c.namespace, "virtualmachineinstances", name, "guestosinfo").Do(ctx).Raw()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, body, "", "  "); err != nil {
		return fmt.Errorf("decoding guest info: %w", err)
	}
	_, err = fmt.Fprintln(c.out, out.String())
	return err
}
