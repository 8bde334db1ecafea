package virtctl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"
)

// vmiVerb runs soft-reboot or reset on a VMI, printing upstream's lines.
func (c *command) vmiVerb(ctx context.Context, verb string, args []string) error {
	name, err := one(verb, args)
	if err != nil {
		return err
	}
	sub, done, failing := "softreboot", "soft-reboot", "soft rebooting"
	if verb == "reset" {
		sub, done, failing = "reset", "reset", "reseting"
	}
	if err := c.put(ctx, "virtualmachineinstances", name, sub, nil); err != nil {
		return fmt.Errorf("Error %s VirtualMachineInstance %s: %w", failing, name, statusError(err))
	}
	_, err = fmt.Fprintf(c.out, "VMI %s was scheduled to %s\n", name, done)
	return err
}

// guestList prints the VMI's users (userlist) or filesystems (fslist) as
// upstream does: indented JSON.
func (c *command) guestList(ctx context.Context, verb string, args []string) error {
	name, err := one(verb, args)
	if err != nil {
		return err
	}
	sub, failing := "userlist", "Error listing users of VirtualMachineInstance %s, %v"
	if verb == "fslist" {
		sub, failing = "filesystemlist", "Error listing filesystems of VirtualMachineInstance %s, %v"
	}
	body, err := c.client.Get().AbsPath("/apis/subresources.kubevirt.io/v1/namespaces", c.namespace, "virtualmachineinstances", name, sub).Do(ctx).Raw()
	if err != nil {
		return fmt.Errorf(failing, name, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, body, "", "  "); err != nil {
		return fmt.Errorf(failing, name, err)
	}
	_, err = fmt.Fprintln(c.out, out.String())
	return err
}

// expand prints a VM with its instancetype and preference applied:
// --vm NAME for a VM in the cluster, --file PATH for one in a file.
func (c *command) expand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("expand", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vm := fs.String("vm", "", "VirtualMachine to expand")
	file := fs.String("file", "", "file holding a VirtualMachine")
	fs.StringVar(file, "f", "", "file holding a VirtualMachine")
	output := fs.String("output", "yaml", "yaml or json")
	fs.StringVar(output, "o", "yaml", "yaml or json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (*vm == "") == (*file == "") {
		return errors.New("error invalid arguments - VirtualMachine name or file must be provided")
	}
	if *output != "yaml" && *output != "json" {
		return fmt.Errorf("error not supported output format defined: %s", *output)
	}
	raw, err := c.expanded(ctx, *vm, *file)
	if err != nil {
		return fmt.Errorf("error expanding VirtualMachine - %s in namespace - %s: %w", *vm, c.namespace, err)
	}
	return c.printAs(raw, *output, " ")
}

func (c *command) expanded(ctx context.Context, vm, file string) ([]byte, error) {
	base := "/apis/subresources.kubevirt.io/v1/namespaces"
	if vm != "" {
		return c.client.Get().AbsPath(base, c.namespace, "virtualmachines", vm, "expand-spec").Do(ctx).Raw()
	}
	data, err := readFileOrStdin(file)
	if err != nil {
		return nil, err
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	return c.client.Put().AbsPath(base, c.namespace, "expand-vm-spec").Body(js).SetHeader("Content-Type", "application/json").Do(ctx).Raw()
}

// objectGraph prints what a VM (or, with --vmi, a VMI) depends on.
func (c *command) objectGraph(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("objectgraph", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vmi := fs.Bool("vmi", false, "the name is a VirtualMachineInstance")
	exclude := fs.Bool("exclude-optional", false, "leave optional nodes out")
	output := fs.String("output", "json", "json or yaml")
	fs.StringVar(output, "o", "json", "json or yaml")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	name, err := one("objectgraph", names)
	if err != nil {
		return err
	}
	if *output != "yaml" && *output != "json" {
		return fmt.Errorf("unsupported output format: %s (must be 'json' or 'yaml')", *output)
	}
	resource, kind := "virtualmachines", "VirtualMachine"
	if *vmi {
		resource, kind = "virtualmachineinstances", "VirtualMachineInstance"
	}
	opts, _ := json.Marshal(map[string]bool{"includeOptionalNodes": !*exclude})
	raw, err := c.client.Get().AbsPath("/apis/subresources.kubevirt.io/v1/namespaces", c.namespace, resource, name, "objectgraph").
		Body(opts).SetHeader("Content-Type", "application/json").Do(ctx).Raw()
	if err != nil {
		return fmt.Errorf("error listing object graph of %s %s: %w", kind, name, err)
	}
	return c.printAs(raw, *output, "  ")
}

func (c *command) printAs(raw []byte, output, indent string) error {
	if output == "yaml" {
		y, err := yaml.JSONToYAML(raw)
		if err != nil {
			return err
		}
		_, err = c.out.Write(y)
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", indent); err != nil {
		return err
	}
	_, err := fmt.Fprintln(c.out, out.String())
	return err
}

// statusError is the API status's message alone, as virtctl prints it.
func statusError(err error) error {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return errors.New(st.Status().Message)
	}
	return err
}

func readFileOrStdin(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(path)
}
