// Package stepargs reads a step program's options as upstream's argument
// parser (go-arg) reads them: each from its environment variable, then
// from --long, --long=value or -short on the command line, which wins.
// create-vm, copy-template and modify-vm-template take their Task
// parameters this way.
package stepargs

import (
	"fmt"
	"os"
	"strings"
)

// Option is one of a step's options.
type Option struct {
	// Long is the name after --, Short the one after - ("" for none).
	Long, Short string
	// Env is the environment variable the option is read from first ("" for
	// none).
	Env string
	// Key names the value: a Task parameter, or an option of the step.
	Key string
	// List takes every following argument up to the next option (an array
	// parameter Tekton expands into separate arguments).
	List bool
	// Boolean needs no value.
	Boolean bool
}

// Keys of the options the steps take besides their Task's parameters.
const (
	KeyOutput = "output"
	KeyDebug  = "debug"
)

// Output is --output (-o), the format the step prints what it made in;
// Debug is --debug, which the steps accept and ignore.
var (
	Output = Option{Long: "output", Short: "o", Key: KeyOutput}
	Debug  = Option{Long: "debug", Key: KeyDebug, Boolean: true}
)

// Values are the options' values by key, and which were given at all.
type Values struct {
	Strings map[string]string
	Lists   map[string][]string
	Given   map[string]bool
}

// Parse reads the environment and args for opts, with go-arg's messages
// for bad arguments.
func Parse(opts []Option, args []string) (Values, error) {
	v := Values{Strings: map[string]string{}, Lists: map[string][]string{}, Given: map[string]bool{}}
	for _, o := range opts {
		if value, ok := os.LookupEnv(o.Env); ok && o.Env != "" {
			v.Strings[o.Key], v.Given[o.Key] = value, true
		}
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" && i+1 < len(args) {
			return v, fmt.Errorf("too many positional arguments at '%s'", args[i+1])
		}
		if arg == "--" {
			continue
		}
		if !isFlag(arg) {
			return v, fmt.Errorf("too many positional arguments at '%s'", arg)
		}
		next, err := v.read(opts, args, i)
		if err != nil {
			return v, err
		}
		i = next
	}
	return v, nil
}

// read reads the option at args[i] and its values, and returns the index
// of the last argument it took.
func (v Values) read(opts []Option, args []string, i int) (int, error) {
	arg := args[i]
	name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	o := find(opts, name)
	if o == nil || name == "" {
		return i, fmt.Errorf("unknown argument %s", arg)
	}
	v.Given[o.Key] = true
	switch {
	case o.List && hasValue:
		v.Lists[o.Key] = []string{value}
	case o.List:
		var values []string
		for i+1 < len(args) && !isFlag(args[i+1]) && args[i+1] != "--" {
			values = append(values, args[i+1])
			i++
		}
		v.Lists[o.Key] = values
	case hasValue:
		v.Strings[o.Key] = value
	case o.Boolean:
		v.Strings[o.Key] = "true"
	case i+1 == len(args) || isFlag(args[i+1]):
		return i, fmt.Errorf("missing value for %s", arg)
	default:
		i++
		v.Strings[o.Key] = args[i]
	}
	return i, nil
}

// isFlag is go-arg's test: a dash and something more than dashes.
func isFlag(s string) bool {
	return strings.HasPrefix(s, "-") && strings.TrimLeft(s, "-") != ""
}

func find(opts []Option, name string) *Option {
	for i := range opts {
		if opts[i].Long == name || (opts[i].Short != "" && opts[i].Short == name) {
			return &opts[i]
		}
	}
	return nil
}

// taskStrings are the string values without Output's and Debug's: the
// Task's parameters.
func (v Values) taskStrings() map[string]string {
	params := make(map[string]string, len(v.Strings))
	for k, s := range v.Strings {
		if k != KeyOutput && k != KeyDebug {
			params[k] = s
		}
	}
	return params
}
