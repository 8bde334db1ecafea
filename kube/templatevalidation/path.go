package templatevalidation

import (
	"encoding/json"
	"reflect"
	"strings"

	"k8s.io/client-go/util/jsonpath"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// JSONPathPrefix marks a rule value as a jsonpath rather than a literal.
const JSONPathPrefix = "jsonpath::"

// Path is a jsonpath of a rule, relative to the VM's .spec.template (rules
// are written against the VMI spec a template renders, not the VM).
// The zero Path is unset.
type Path struct {
	expr string
	set  bool
}

// ParsePath parses a "jsonpath::<expr>" value; a leading "$" of expr is
// dropped because rule paths are always relative.
func ParsePath(s string) (Path, error) {
	if !strings.HasPrefix(s, JSONPathPrefix) {
		return Path{}, ErrInvalidJSONPath
	}
	expr := strings.TrimPrefix(strings.TrimPrefix(s, JSONPathPrefix), "$")
	// The jsonpath parser's own error is kept bare: it is the text
	// upstream's webhook answers with, and Parse adds the context.
	if _, err := compile(expr); err != nil {
		return Path{}, err
	}
	return Path{expr: expr, set: true}, nil
}

// Expr is the expression without prefix, e.g. ".spec.domain.cpu.cores";
// it is what causes carry as their Field.
func (p Path) Expr() string { return p.expr }

// IsSet reports whether the path was given.
func (p Path) IsSet() bool { return p.set }

// String renders the path as it is written in rules.
func (p Path) String() string { return JSONPathPrefix + p.expr }

// MarshalJSON writes the path in its rule form, "jsonpath::<expr>".
func (p Path) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// UnmarshalJSON reads a "jsonpath::<expr>" string.
func (p *Path) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	parsed, err := ParsePath(s)
	if err != nil {
		return err
	}
	*p = parsed
	return nil
}

func compile(expr string) (*jsonpath.JSONPath, error) {
	jp := jsonpath.New(expr)
	if err := jp.Parse("{.spec.template" + expr + "}"); err != nil {
		return nil, err
	}
	return jp, nil
}

// results are jsonpath matches, one slice per template node.
type results [][]reflect.Value

func (r results) count() int {
	n := 0
	for _, vals := range r {
		n += len(vals)
	}
	return n
}

// existsOn reports whether the path matches anything on vm; any lookup
// error means it does not, as for upstream's `valid` check.
func (p Path) existsOn(vm *kubevirtv1.VirtualMachine) bool {
	jp, err := p.compiled()
	if err != nil {
		return false
	}
	res, err := jp.FindResults(vm)
	return err == nil && results(res).count() > 0
}

// lookup evaluates the path on vm and, when that fails (jsonpath cannot
// tell a bogus path from a nil optional field), on the zero-valued
// reference VM, so an absent optional field reads as its zero value.
// The same compiled path serves both lookups, as upstream's does: the
// jsonpath library keeps state (negative indexes, ranges) across calls.
func (p Path) lookup(vm, ref *kubevirtv1.VirtualMachine) (results, error) {
	jp, err := p.compiled()
	if err != nil {
		return nil, err
	}
	if res, err := jp.FindResults(vm); err == nil {
		return res, nil
	}
	if res, err := jp.FindResults(ref); err == nil {
		return res, nil
	}
	return nil, ErrInvalidJSONPath
}

// compiled parses afresh on every lookup because a parsed jsonpath is
// mutated while it is evaluated, and rules may be shared between
// concurrent evaluations.
func (p Path) compiled() (*jsonpath.JSONPath, error) {
	if !p.set {
		return nil, ErrMissingRequiredKey
	}
	return compile(p.expr)
}
