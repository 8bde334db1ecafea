package virtctl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// sshOptions are the flags ssh and scp share, with upstream's names and
// defaults.
type sshOptions struct {
	port         int
	username     string
	identityFile string
	// identityProvided is whether -i was given: only then is it passed
	// on, so that the local ssh's own defaults and agent apply otherwise.
	identityProvided bool
	// knownHosts is accepted for upstream's command lines; like upstream,
	// the local client is not told about it.
	knownHosts string
	localOpts  []string
}

func defaultSSHOptions() *sshOptions {
	o := &sshOptions{port: 22, username: defaultUsername()}
	if home, err := os.UserHomeDir(); err == nil {
		o.identityFile = filepath.Join(home, ".ssh", "id_rsa")
		o.knownHosts = filepath.Join(home, ".ssh", "kubevirt_known_hosts")
	}
	return o
}

// defaultUsername is the local user, as upstream finds it.
func defaultUsername() string {
	for _, env := range []string{"USER", "USERNAME", "LOGNAME"} {
		if v := os.Getenv(env); v != "" {
			return v
		}
	}
	return ""
}

func addSSHFlags(fs *flag.FlagSet, o *sshOptions) {
	fs.SetOutput(io.Discard)
	for _, name := range []string{"username", "l"} {
		fs.StringVar(&o.username, name, o.username, "the user to connect as")
	}
	for _, name := range []string{"identity-file", "i"} {
		fs.StringVar(&o.identityFile, name, o.identityFile, "the private key to authenticate with")
	}
	fs.StringVar(&o.knownHosts, "known-hosts", o.knownHosts, "the known_hosts file")
	for _, name := range []string{"port", "p"} {
		fs.IntVar(&o.port, name, o.port, "the VM's port to send SSH traffic to")
	}
	for _, name := range []string{"local-ssh-opts", "t"} {
		fs.Var(repeated{&o.localOpts}, name, "an option for the local ssh client (repeatable)")
	}
}

// parseSSHFlags parses args and notes whether -i was given.
func parseSSHFlags(fs *flag.FlagSet, o *sshOptions, args []string) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "identity-file" || f.Name == "i" {
			o.identityProvided = true
		}
	})
	return pos, nil
}

// ssh runs the local ssh client with virtctl port-forward as its
// ProxyCommand, so the connection goes through virt-api.
func (c *command) ssh(ctx context.Context, args []string) error {
	argv, err := c.sshArgv(args)
	if err != nil {
		return err
	}
	return c.runLocal(ctx, "ssh", argv)
}

// sshArgv is the local ssh client's argv for virtctl ssh's args.
func (c *command) sshArgv(args []string) ([]string, error) {
	o := defaultSSHOptions()
	fs := flag.NewFlagSet("ssh", flag.ContinueOnError)
	addSSHFlags(fs, o)
	var remoteCommand string
	for _, name := range []string{"command", "c"} {
		fs.StringVar(&remoteCommand, name, "", "a command to execute in the VM")
	}
	namespaceFlags(fs, &c.namespace)
	pos, err := parseSSHFlags(fs, o, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, fmt.Errorf("accepts 1 arg(s), received %d", len(pos))
	}
	kind, namespace, name, username, err := parseSSHTarget(pos[0])
	if err != nil {
		return nil, err
	}
	if namespace == "" {
		namespace = c.namespace
	}
	if username != "" {
		o.username = username
	}
	target := []string{hostAlias(o.username, kind, name, namespace)}
	if remoteCommand != "" {
		target = append(target, remoteCommand)
	}
	return c.proxy().clientArgs(o, kind, namespace, name, target), nil
}

// parseSSHTarget reads [username@]type/name[/namespace].
func parseSSHTarget(arg string) (kind, namespace, name, username string, err error) {
	parts := strings.Split(arg, "@")
	if len(parts) > 1 {
		username = parts[0]
		if username == "" {
			return "", "", "", "", errors.New("expected username before '@'")
		}
		arg = parts[1]
	}
	if arg == "" {
		return "", "", "", "", errors.New("expected target after '@'")
	}
	kind, namespace, name, err = parseForwardTarget(arg)
	if err != nil {
		return "", "", "", "", err
	}
	return kind, namespace, name, username, nil
}

// hostAlias is the name the local client knows the VM by (in known_hosts,
// for one): [user@]kind.name.namespace.
func hostAlias(username, kind, name, namespace string) string {
	alias := kind + "." + name + "." + namespace
	if username != "" {
		return username + "@" + alias
	}
	return alias
}

// proxyCommand is how ssh and scp start this virtctl again for the
// tunnel: the same program, with the kubeconfig and impersonation the
// user gave this one (the namespace travels in the target).
type proxyCommand struct {
	program, kubeconfig, as string
}

func (c *command) proxy() proxyCommand {
	program := c.program
	if program == "" {
		// As upstream: the name this virtctl was started by, which the
		// shell ssh runs the ProxyCommand with finds again.
		program = os.Args[0]
	}
	return proxyCommand{program: program, kubeconfig: c.kubeconfig, as: c.as}
}

// option is the -o ProxyCommand=... value: upstream's, with the global
// flags in front of the verb when they were given.
func (p proxyCommand) option(kind, namespace, name string, port int) string {
	var b strings.Builder
	b.WriteString("ProxyCommand=" + proxyWord(p.program))
	if p.kubeconfig != "" {
		b.WriteString(" --kubeconfig " + proxyWord(p.kubeconfig))
	}
	if p.as != "" {
		b.WriteString(" --as " + proxyWord(p.as))
	}
	b.WriteString(" port-forward --stdio=true " + proxyWord(kind+"/"+name+"/"+namespace) + " " + strconv.Itoa(port))
	return b.String()
}

// clientArgs is the local client's argv in upstream's order: the proxy,
// the user's local options, the identity if given, then the target.
func (p proxyCommand) clientArgs(o *sshOptions, kind, namespace, name string, target []string) []string {
	args := []string{"-o", p.option(kind, namespace, name, o.port)}
	args = append(args, o.localOpts...)
	if o.identityProvided {
		args = append(args, "-i", o.identityFile)
	}
	return append(args, target...)
}

// plainWord needs neither shell quoting nor ssh's %-escaping.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@+,-]+$`)

// proxyWord quotes s for the shell ssh runs the ProxyCommand with, and
// doubles % which ssh would otherwise expand; common words stay as they
// are, so the command reads as upstream's.
func proxyWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	s = strings.ReplaceAll(s, "%", "%%")
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runLocal runs the local client on this terminal.
func (c *command) runLocal(ctx context.Context, program string, args []string) error {
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.in, c.out, c.errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("running %s: %w", program, err)
	}
	return nil
}
