package executeinvm

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// emptySecretName is the Tasks' default secretName: no secret.
const emptySecretName = "__empty__"

// options are the Tasks' parameters, checked and resolved.
type options struct {
	vmName      string
	vmNamespace string
	secretName  string
	// script is the script, or the command and its arguments joined by
	// spaces; empty when there is nothing to run.
	script string
	stop   bool
	delete bool
	// timeout bounds the start, the connection and the script; 0 means
	// none.
	timeout time.Duration
}

// parseOptions checks params in upstream's order and with its messages;
// an empty vmNamespace is the active namespace.
func parseOptions(params stepenv.Params, activeNamespace string) (options, error) {
	o := options{
		vmName:      params.String("vmName"),
		vmNamespace: strings.TrimSpace(params.String("vmNamespace")),
		secretName:  params.String("secretName"),
		script:      params.String("script"),
	}
	if err := validName(o.vmName, "missing value for vm-name option", "vm-name is not a valid name: %v"); err != nil {
		return o, err
	}
	if o.vmNamespace == "" {
		o.vmNamespace = activeNamespace
	}
	stop, del := params.String("stop"), params.String("delete")
	if err := o.resolveScript(params, strings.ToLower(stop) == "true", strings.ToLower(del) == "true"); err != nil {
		return o, err
	}
	if o.script != "" {
		if o.secretName == "" || o.secretName == emptySecretName {
			return o, errors.New("connection secret should not be empty")
		}
		if err := validName(o.secretName, "", "connection secret does not have a valid name: %v"); err != nil {
			return o, err
		}
	}
	if t := params.String("timeout"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil {
			return o, fmt.Errorf("could not parse timeout: %v", err)
		}
		o.timeout = d
	}
	var err error
	if o.stop, err = flag("stop", stop); err != nil {
		return o, err
	}
	o.delete, err = flag("delete", del)
	return o, err
}

// resolveScript takes the script, or else the command and its arguments;
// nothing to run is fine only when the VM is to be stopped or deleted.
func (o *options) resolveScript(params stepenv.Params, stop, del bool) error {
	command := strings.Join(append(append([]string{}, params.Array("command")...), params.Array("args")...), " ")
	if o.script != "" {
		if command != "" {
			return errors.New("only one of command|script options is allowed")
		}
		return nil
	}
	if !stop && !del && strings.TrimSpace(command) == "" {
		return errors.New("no action was specified: at least one of the following options is required: command|script|stop|delete")
	}
	o.script = command
	return nil
}

// flag is a true|false option; empty is false.
func flag(name, value string) (bool, error) {
	switch value {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, fmt.Errorf("invalid option %s %v, only true|false is allowed", name, value)
}

func validName(name, missing, invalid string) error {
	if name == "" && missing != "" {
		return errors.New(missing)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf(invalid, strings.Join(errs, ";"))
	}
	return nil
}
