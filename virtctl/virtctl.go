// Package virtctl is the virtctl command line: VM lifecycle verbs sent to
// virt-api's subresources.kubevirt.io API through the Kubernetes API server,
// with kubectl-style --kubeconfig and -n flags.
package virtctl

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const usage = `virtctl controls virtual machine related operations on your kubernetes cluster.

Usage:
  virtctl [--kubeconfig FILE] [-n NAMESPACE] [--as USER] COMMAND ...

Commands:
  start VM                         start a virtual machine
  stop VM [--force --grace-period N]
                                   stop a virtual machine
  restart VM                       restart a virtual machine
  migrate VM [--dry-run] [--addedNodeSelector key=value[,key=value]]
                                   live-migrate a virtual machine to another node
  migrate-cancel VM [--dry-run]    cancel the virtual machine's migration in flight
  evacuate-cancel (vm NAME | vmi NAME) [--dry-run]
                                   stop evacuating a virtual machine (instance)
                                   off its node; a migration already started runs on
  console VMI                      connect to the serial console (escape with ^])
  vnc VMI [--port N] [--proxy-only]
                                   open the VNC display in a local viewer, or
                                   only proxy it to 127.0.0.1:PORT
  vnc screenshot VMI -f FILE [-m]  save a PNG of the VNC display (- for stdout)
  guestosinfo VMI                  print what the guest agent reports
  userlist VMI                     print the users logged in to the guest
  fslist VMI                       print the guest's filesystems
  soft-reboot VMI                  reboot the guest from inside (agent or ACPI)
  reset VMI                        reset the guest at once
  expand --vm NAME | --file FILE [-o yaml|json]
                                   print a VM with its instancetype and
                                   preference applied
  objectgraph NAME [--vmi] [--exclude-optional] [-o json|yaml]
                                   print the objects a VM (VMI) depends on
  pause vm|vmi NAME                pause a virtual machine (instance)
  unpause vm|vmi NAME              unpause a virtual machine (instance)
  version                          print client and server versions
  expose vm|vmi|vmirs NAME --name SERVICE [--port N] [--target-port P] [--protocol TCP|UDP]
            [--port-name N] [--type ClusterIP|NodePort|LoadBalancer] [--cluster-ip IP]
            [--external-ip IP] [--ip-family F] [--ip-family-policy P]
                                   create a Service for a VM, VMI or VMI replica
                                   set (without --port, its pod network's ports)
  port-forward TYPE/NAME[/NAMESPACE] [PROTOCOL/]LOCAL[:TARGET]... [--address ADDR] [--stdio]
                                   forward local ports (or, with --stdio, stdin
                                   and stdout) to a VM's or VMI's ports
  ssh [USER@]TYPE/NAME[/NAMESPACE] [-i FILE] [-l USER] [-p PORT] [-t OPT]... [-c CMD]
            [--known-hosts FILE]
                                   run the local ssh through port-forward
  scp [flags] SRC DST              copy with the local scp through port-forward;
                                   one side is [USER@]TYPE/NAME[/NAMESPACE]:PATH;
                                   flags: -i, -l, -p, -t as ssh, -r, --preserve
  create vm [--name N] [--run-strategy S] [--memory M | --instancetype [KIND/]NAME]
            [--preference [KIND/]NAME] [--volume-containerdisk src:IMAGE[,name:N][,bootorder:N]]
            [--volume-pvc src:CLAIM[,name:N][,bootorder:N]] [--termination-grace-period S]
            [--cloud-init-user-data BASE64 | --user U --ssh-key KEY]
                                   print a VirtualMachine manifest (no cluster needed)
  image-upload dv NAME --image-path FILE [--size SIZE] [--storage-class SC]
            [--access-mode MODE] [--volume-mode filesystem|block] [--uploadproxy-url URL]
            [--insecure] [--no-create] [--force-bind] [--wait-secs N]
                                   upload a local disk image to a new (or, with
                                   --no-create, an existing) DataVolume
`

// Main runs virtctl with args (without the program name).
func Main(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("virtctl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kubeconfig := fs.String("kubeconfig", "", "path to the kubeconfig file")
	ns := fs.String("namespace", "", "namespace")
	fs.StringVar(ns, "n", "", "namespace")
	as := fs.String("as", "", "username to impersonate for the operation")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w\n%s", err, usage)
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return errors.New(usage)
	}
	if rest[0] == "create" {
		if len(rest) < 2 || rest[1] != "vm" {
			return fmt.Errorf("create needs a kind: vm\n%s", usage)
		}
		return createVM(rest[2:], *ns, out)
	}
	if rest[0] == "image-upload" {
		return imageUpload(ctx, rest[1:], *kubeconfig, *ns, *as, out)
	}
	c, cfg, namespace, err := connect(*kubeconfig, *ns, *as)
	if err != nil {
		return err
	}
	cmd := &command{client: c, config: cfg, namespace: namespace, out: out, in: os.Stdin, errOut: os.Stderr,
		kubeconfig: *kubeconfig, as: *as}
	return cmd.run(ctx, rest[0], rest[1:])
}

func connect(kubeconfig, ns, as string) (rest.Interface, *rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	overrides := &clientcmd.ConfigOverrides{}
	overrides.Context.Namespace = ns
	overrides.AuthInfo.Impersonate = as
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, nil, "", fmt.Errorf("cannot load kubeconfig: %w", err)
	}
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil {
			return nil, nil, "", err
		}
	}
	wsCfg := rest.CopyConfig(cfg)
	cfg.GroupVersion = nil
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, nil, "", fmt.Errorf("creating client: %w", err)
	}
	return c, wsCfg, ns, nil
}

type command struct {
	client    rest.Interface
	config    *rest.Config
	namespace string
	out       io.Writer
	// in and errOut are the terminal's other ends: port-forward --stdio
	// carries its stream on in and out, so its messages go to errOut.
	in     io.Reader
	errOut io.Writer
	// kubeconfig and as are the global flags as given, for the
	// port-forward virtctl that ssh and scp start as their ProxyCommand.
	kubeconfig, as string
	// program is the virtctl to start for the tunnel; os.Args[0] when
	// empty.
	program string
}

func (c *command) put(ctx context.Context, resource, name, verb string, body any) error {
	req := c.client.Put().AbsPath("/apis/subresources.kubevirt.io/v1/namespaces", c.namespace, resource, name, verb)
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		req = req.Body(data).SetHeader("Content-Type", "application/json")
	}
	return req.Do(ctx).Error()
}
