package executeinvm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/virtflow/virtflow/tasks/shellwords"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// SecretDir is where the Tasks mount the connection secret.
const SecretDir = "/data/connectionsecret"

// Connection types (the secret's type key).
const (
	typeSSH = "ssh"
	// typeConsole is virtflow's: a shell on the VMI's serial console, for
	// guests without a network or SSH.
	typeConsole = "console"
)

// Secret keys, upstream's.
const (
	keyType          = "type"
	keyUser          = "user"
	keyPrivateKey    = corev1.SSHAuthPrivateKey
	keyPrivateKeyAlt = "ssh-private-key"
	keyHostPublicKey = "host-public-key"
	keyNoStrict      = "disable-strict-host-key-checking"
	keySSHOptions    = "additional-ssh-options"
)

// connection is how to reach the guest, from the connection secret; the
// console type has no settings.
type connection struct {
	kind string
	ssh  sshAttributes
}

// sshAttributes are the secret's SSH settings.
type sshAttributes struct {
	user          string
	privateKey    string
	hostPublicKey string
	port          int
	// strict is StrictHostKeyChecking: yes, no or accept-new.
	strict string
	// ignored are the additional options this client cannot honour.
	ignored []string
}

// readSecret is the secret's data: the mounted files when dir has any (the
// Task's pod), else the Secret itself in the step's namespace (the durable
// runner).
func readSecret(ctx context.Context, env stepenv.Env, dir, name string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		return readSecretDir(dir, entries)
	}
	if env.Client == nil {
		return nil, fmt.Errorf("secret does not exist at %v", dir)
	}
	secret := &corev1.Secret{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: env.Namespace, Name: name}, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("secret does not exist at %v/%v", env.Namespace, name)
		}
		return nil, fmt.Errorf("reading connection secret %s/%s: %w", env.Namespace, name, err)
	}
	data := map[string]string{}
	for k, v := range secret.StringData {
		data[k] = v
	}
	for k, v := range secret.Data {
		data[k] = string(v)
	}
	return data, nil
}

// readSecretDir reads a secret volume, whose "..data" entries are the
// kubelet's bookkeeping.
func readSecretDir(dir string, entries []os.DirEntry) (map[string]string, error) {
	data := map[string]string{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "..") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if info, err := os.Stat(path); err != nil || info.IsDir() {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading connection secret %s: %w", path, err)
		}
		data[e.Name()] = string(b)
	}
	return data, nil
}

// parseConnection decides the connection type as upstream does (the type
// key, else SSH when there is a private key) and checks its settings.
func parseConnection(data map[string]string) (connection, error) {
	kind := strings.TrimSpace(data[keyType])
	switch {
	case kind == typeSSH || kind == typeConsole:
	case data[keyPrivateKey] != "" || data[keyPrivateKeyAlt] != "":
		kind = typeSSH
	case kind == "":
		return connection{}, fmt.Errorf("%v secret attribute is required", keyType)
	default:
		return connection{}, fmt.Errorf("%v is invalid %v", kind, keyType)
	}
	c := connection{kind: kind}
	if kind == typeConsole {
		return c, nil
	}
	var err error
	c.ssh, err = parseSSH(data)
	return c, err
}

// parseSSH checks upstream's SSH keys in upstream's order.
func parseSSH(data map[string]string) (sshAttributes, error) {
	a := sshAttributes{user: data[keyUser], privateKey: data[keyPrivateKey], hostPublicKey: data[keyHostPublicKey]}
	noStrict := strings.ToLower(data[keyNoStrict]) == "true"
	if strings.TrimSpace(a.privateKey) == "" {
		if strings.TrimSpace(data[keyPrivateKeyAlt]) == "" {
			return a, fmt.Errorf("%v secret attribute is required", keyPrivateKey)
		}
		a.privateKey = data[keyPrivateKeyAlt]
	}
	if a.user == "" {
		return a, fmt.Errorf("%v secret attribute is required", keyUser)
	}
	if strings.TrimSpace(a.hostPublicKey) == "" && !noStrict {
		return a, fmt.Errorf("%v or %v=true secret attribute is required", keyHostPublicKey, keyNoStrict)
	}
	opts, err := shellwords.Split(data[keySSHOptions])
	if err != nil {
		return a, fmt.Errorf("%v: %w", keySSHOptions, err)
	}
	if a.port, err = sshPort(opts); err != nil {
		return a, err
	}
	a.strict = "yes"
	if noStrict {
		a.strict = "no"
	}
	a.strict, a.ignored = sshOptions(opts, a.strict)
	return a, nil
}

// sshPort is -p's value (-p 2222, -p2222 or -p=2222), 22 without it.
func sshPort(opts []string) (int, error) {
	for i, o := range opts {
		if !strings.HasPrefix(o, "-p") {
			continue
		}
		value := strings.TrimPrefix(strings.TrimPrefix(o, "-p"), "=")
		if value == "" && i+1 < len(opts) && !strings.HasPrefix(opts[i+1], "-") {
			value = opts[i+1]
		}
		if value == "" {
			return 0, errors.New("ssh option requires an argument -- p")
		}
		port, err := strconv.Atoi(value)
		if err != nil {
			return 0, fmt.Errorf("Bad port '%v'", value)
		}
		return port, nil
	}
	return 22, nil
}

// sshOptions takes StrictHostKeyChecking from -o options (it overrides
// the secret's choice, as upstream's ssh command line does) and lists
// the options the built-in client ignores.
func sshOptions(opts []string, strict string) (string, []string) {
	var ignored []string
	for i := 0; i < len(opts); i++ {
		o := opts[i]
		switch {
		case strings.HasPrefix(o, "-p"):
			if o == "-p" {
				i++
			}
		case o == "-o" && i+1 < len(opts):
			i++
			if s, ok := strictOption(opts[i]); ok {
				strict = s
			} else {
				ignored = append(ignored, o, opts[i])
			}
		case strings.HasPrefix(o, "-o"):
			if s, ok := strictOption(strings.TrimPrefix(o, "-o")); ok {
				strict = s
			} else {
				ignored = append(ignored, o)
			}
		default:
			ignored = append(ignored, o)
		}
	}
	return strict, ignored
}

// strictOption reads "StrictHostKeyChecking=value" (or with a blank).
func strictOption(o string) (string, bool) {
	key, value, ok := strings.Cut(o, "=")
	if !ok {
		key, value, ok = strings.Cut(o, " ")
	}
	if !ok || !strings.EqualFold(strings.TrimSpace(key), "StrictHostKeyChecking") {
		return "", false
	}
	switch v := strings.ToLower(strings.TrimSpace(value)); v {
	case "no", "off":
		return "no", true
	case "accept-new":
		return v, true
	}
	return "yes", true
}
