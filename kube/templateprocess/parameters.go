package templateprocess

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ParseParameters reads NAME=VALUE assignments (oc process -p values and
// NAME=VALUE arguments) into Options.Values, with oc's checks and texts:
// a name must be a valid environment variable name and be followed by "=",
// else `invalid parameter assignment in "X", [reasons]` for the first such
// assignment; a name given twice gives `The following parameters were
// provided more than once: A, B`. The value is everything after the first
// "=" and may be empty.
func ParseParameters(assignments []string) (map[string]string, error) {
	values := map[string]string{}
	var invalid []error
	repeated := map[string]bool{}
	for _, a := range assignments {
		parts := strings.SplitN(a, "=", 2)
		if reasons := validation.IsEnvVarName(parts[0]); len(reasons) != 0 || len(parts) != 2 {
			invalid = append(invalid, fmt.Errorf("invalid parameter assignment in %q, %v", a, reasons))
			continue
		}
		if _, seen := values[parts[0]]; seen {
			repeated[parts[0]] = true
			continue
		}
		values[parts[0]] = parts[1]
	}
	// oc stops at the first invalid assignment before it looks at repeats.
	if len(invalid) > 0 {
		return nil, invalid[0]
	}
	if len(repeated) > 0 {
		return nil, repeatedError(repeated)
	}
	return values, nil
}

// repeatedError is oc's usage error for names given more than once, without
// the command's help hint that oc appends.
func repeatedError(names map[string]bool) error {
	sorted := make([]string, 0, len(names))
	for name := range names {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	return fmt.Errorf("The following parameters were provided more than once: %s", strings.Join(sorted, ", "))
}

// ParseLabels reads oc process -l's "key=value,key=value" into
// Options.Labels, with oc's texts (`error parsing labels: ...`, trailing
// newline included, as oc prints it).
func ParseLabels(spec string) (map[string]string, error) {
	labels, err := parseLabelSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("error parsing labels: %w\n", err)
	}
	return labels, nil
}

// parseLabelSpec is kubectl's generate.ParseLabels, which oc uses.
func parseLabelSpec(spec string) (map[string]string, error) {
	if spec == "" {
		return nil, errors.New("no label spec passed")
	}
	labels := map[string]string{}
	for _, pair := range strings.Split(spec, ",") {
		kv := strings.Split(pair, "=")
		if len(kv) != 2 {
			return nil, fmt.Errorf("unexpected label spec: %s", pair)
		}
		if kv[0] == "" {
			return nil, errors.New("unexpected empty label key")
		}
		labels[kv[0]] = kv[1]
	}
	return labels, nil
}

// aggregate joins errors as oc does (k8s.io/apimachinery's aggregate: one
// error reads as itself, several as "[a, b]"); nil when there are none.
func aggregate(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return utilerrors.NewAggregate(errs)
}
