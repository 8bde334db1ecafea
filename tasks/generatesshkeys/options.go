package generatesshkeys

import (
	"fmt"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// The Task's parameter names.
const (
	ParamPublicKeySecretName         = "publicKeySecretName"
	ParamPublicKeySecretNamespace    = "publicKeySecretNamespace"
	ParamPrivateKeySecretName        = "privateKeySecretName"
	ParamPrivateKeySecretNamespace   = "privateKeySecretNamespace"
	ParamPrivateKeyConnectionOptions = "privateKeyConnectionOptions"
	ParamAdditionalSSHKeygenOptions  = "additionalSSHKeygenOptions"
)

// The result names.
const (
	ResultPublicKeySecretName       = "publicKeySecretName"
	ResultPublicKeySecretNamespace  = "publicKeySecretNamespace"
	ResultPrivateKeySecretName      = "privateKeySecretName"
	ResultPrivateKeySecretNamespace = "privateKeySecretNamespace"
)

// The connection secret's keys (execute-in-vm's format) the task reads.
const (
	connectionUser = "user"
	// privateKeyData is where the private key goes, the ssh-auth secret
	// type's key.
	privateKeyData = "ssh-privatekey"
)

// options are the task's parameters, checked.
type options struct {
	publicName, publicNamespace   string
	privateName, privateNamespace string
	// connection are the private key secret's other entries.
	connection    map[string]string
	keygenOptions string
}

// parseOptions checks params with upstream's messages, in its order;
// activeNamespace is the namespace of a secret whose namespace is empty.
func parseOptions(params stepenv.Params, activeNamespace string) (*options, error) {
	o := &options{
		publicName:       strings.TrimSpace(params.String(ParamPublicKeySecretName)),
		publicNamespace:  strings.TrimSpace(params.String(ParamPublicKeySecretNamespace)),
		privateName:      strings.TrimSpace(params.String(ParamPrivateKeySecretName)),
		privateNamespace: strings.TrimSpace(params.String(ParamPrivateKeySecretNamespace)),
		keygenOptions:    params.String(ParamAdditionalSSHKeygenOptions),
	}
	for _, opt := range []struct{ name, value string }{
		{"public-key-secret-name", o.publicName}, {"public-key-secret-namespace", o.publicNamespace},
		{"private-key-secret-name", o.privateName}, {"private-key-secret-namespace", o.privateNamespace},
	} {
		if opt.value == "" {
			continue
		}
		if errs := validation.IsDNS1123Subdomain(opt.value); len(errs) > 0 {
			return nil, fmt.Errorf("invalid %v value: %v", opt.name, strings.Join(errs, ", "))
		}
	}
	connection, err := parseConnectionOptions(params.Array(ParamPrivateKeyConnectionOptions))
	if err != nil {
		return nil, fmt.Errorf("invalid private-key connection options: %v", err)
	}
	o.connection = connection
	if o.publicNamespace == "" {
		o.publicNamespace = activeNamespace
	}
	if o.privateNamespace == "" {
		o.privateNamespace = activeNamespace
	}
	return o, nil
}

// parseConnectionOptions reads "KEY:VALUE" entries. An entry without a
// colon continues the previous entry's value after a space: arguments
// split at spaces ("additional-ssh-options:-p", "8022") read as written.
func parseConnectionOptions(entries []string) (map[string]string, error) {
	result := make(map[string]string, len(entries))
	lastKey := ""
	for _, entry := range entries {
		entry = strings.TrimLeftFunc(entry, unicode.IsSpace)
		if entry == "" {
			continue
		}
		key, value, found := strings.Cut(entry, ":")
		key = strings.TrimSpace(key)
		switch {
		case !found && lastKey != "":
			result[lastKey] += " " + entry
		case !found || key == "":
			return nil, fmt.Errorf("no key found before %q; pair should be in \"KEY:VAL\" format", entry)
		default:
			result[key] = value
			lastKey = key
		}
	}
	return result, nil
}
