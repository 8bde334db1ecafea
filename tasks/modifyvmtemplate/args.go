package modifyvmtemplate

import (
	"fmt"
	"os"
	"strings"
)

// option is one of the step's command-line options, read as upstream's
// argument parser (go-arg) reads it: from its environment variable, then
// from --long, --long=value or -short, the command line winning.
type option struct {
	long, short, env string
	// key names the value: a Task parameter, or an option of the step.
	key string
	// list takes every following argument up to the next option (an array
	// parameter Tekton expands into separate arguments).
	list bool
	// boolean needs no value.
	boolean bool
}

// parsedArgs are the options' values by key, and which were given at all.
type parsedArgs struct {
	strings map[string]string
	lists   map[string][]string
	given   map[string]bool
}

// parseArgs reads the environment and args for opts.
func parseArgs(opts []option, args []string) (parsedArgs, error) {
	p := parsedArgs{strings: map[string]string{}, lists: map[string][]string{}, given: map[string]bool{}}
	for _, o := range opts {
		if v, ok := os.LookupEnv(o.env); ok && o.env != "" {
			p.strings[o.key], p.given[o.key] = v, true
		}
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" && i+1 < len(args) {
			return p, fmt.Errorf("too many positional arguments at '%s'", args[i+1])
		}
		if arg == "--" {
			continue
		}
		if !isFlag(arg) {
			return p, fmt.Errorf("too many positional arguments at '%s'", arg)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		o := findOption(opts, name)
		if o == nil || name == "" {
			return p, fmt.Errorf("unknown argument %s", arg)
		}
		p.given[o.key] = true
		switch {
		case o.list && hasValue:
			p.lists[o.key] = []string{value}
		case o.list:
			var values []string
			for i+1 < len(args) && !isFlag(args[i+1]) && args[i+1] != "--" {
				values = append(values, args[i+1])
				i++
			}
			p.lists[o.key] = values
		case hasValue:
			p.strings[o.key] = value
		case o.boolean:
			p.strings[o.key] = "true"
		case i+1 == len(args) || isFlag(args[i+1]):
			return p, fmt.Errorf("missing value for %s", arg)
		default:
			i++
			p.strings[o.key] = args[i]
		}
	}
	return p, nil
}

// isFlag is go-arg's test: a dash and something more than dashes.
func isFlag(s string) bool {
	return strings.HasPrefix(s, "-") && strings.TrimLeft(s, "-") != ""
}

func findOption(opts []option, name string) *option {
	for i := range opts {
		if opts[i].long == name || (opts[i].short != "" && opts[i].short == name) {
			return &opts[i]
		}
	}
	return nil
}
