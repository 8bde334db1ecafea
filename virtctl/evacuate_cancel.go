package virtctl

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// evacuateCancel stops the evacuation of a VM's instance or of a VMI
// through virt-api's evacuate/cancel, with upstream's arguments and
// messages. virt-api removes the mark only if it still names the node
// the request names (a guard against undoing a later drain), so the node
// is read from the VMI first, as upstream's virtctl does after v1.8.4:
// v1.8.4's named none, which no marked VMI matches.
func (c *command) evacuateCancel(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("evacuate-cancel", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dryRun := fs.Bool("dry-run", false, "perform a dry run without changing anything")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return fmt.Errorf("accepts 2 arg(s), received %d", len(pos))
	}
	resource, kind, err := evacuationTarget(pos[0])
	if err != nil {
		return err
	}
	name := pos[1]
	opts := kubevirtv1.EvacuateCancelOptions{DryRun: c.dryRun(*dryRun)}
	vmi, err := c.getVMI(ctx, name)
	if err != nil {
		return fmt.Errorf("error retrieving VMI for evacuation cancel for %s %s/%s: %w", kind, c.namespace, name, err)
	}
	if vmi.Status.NodeName == "" {
		return fmt.Errorf("%s %s/%s doesn't report Node name", kind, c.namespace, name)
	}
	opts.EvacuationNodeName = vmi.Status.NodeName
	if err := c.put(ctx, resource, name, "evacuate/cancel", opts); err != nil {
		return fmt.Errorf("error canceling evacuation for %s %s/%s: %w", kind, c.namespace, name, err)
	}
	_, err = fmt.Fprintf(c.out, "%s %s/%s was canceled evacuation\n", kind, c.namespace, name)
	return err
}

// evacuationTarget maps the kind argument to the resource whose
// subresource is called and the word messages use; upstream takes these
// spellings, in any case, and nothing else (not a node, though its help
// mentions one).
func evacuationTarget(kind string) (resource, word string, err error) {
	switch strings.ToLower(kind) {
	case "vm", "vms", "virtualmachine", "virtualmachines":
		return "virtualmachines", "VM", nil
	case "vmi", "vmis", "virtualmachineinstance", "virtualmachineinstances":
		return "virtualmachineinstances", "VMI", nil
	}
	return "", "", fmt.Errorf("unsupported resource type %q", kind)
}

// getVMI reads the namespace's VMI of that name, a VM's instance too.
func (c *command) getVMI(ctx context.Context, name string) (*kubevirtv1.VirtualMachineInstance, error) {
	res := c.client.Get().AbsPath("/apis/kubevirt.io/v1/namespaces", c.namespace, "virtualmachineinstances", name).Do(ctx)
	// Error, unlike Raw, decodes the API server's Status, whose message
	// upstream's typed client prints.
	if err := res.Error(); err != nil {
		return nil, err
	}
	raw, err := res.Raw()
	if err != nil {
		return nil, fmt.Errorf("reading VMI %s: %w", name, err)
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := json.Unmarshal(raw, vmi); err != nil {
		return nil, fmt.Errorf("decoding VMI %s: %w", name, err)
	}
	return vmi, nil
}
