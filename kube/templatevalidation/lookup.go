package templatevalidation

import (
	"fmt"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// lookupInts reads the values a rule checks; matching nothing at all is an
// error, not a vacuous success, so a rule never silently passes.
func lookupInts(p Path, vm, ref *kubevirtv1.VirtualMachine) ([]int64, error) {
	res, err := p.lookup(vm, ref)
	if err != nil {
		return nil, err
	}
	vals, err := res.ints()
	if err != nil {
		return nil, err
	}
	if len(vals) == 0 {
		return nil, ErrNoValuesFound
	}
	return vals, nil
}

func lookupStrings(p Path, vm, ref *kubevirtv1.VirtualMachine) ([]string, error) {
	res, err := p.lookup(vm, ref)
	if err != nil {
		return nil, err
	}
	vals, err := res.strings()
	if err != nil {
		return nil, err
	}
	if len(vals) == 0 {
		return nil, ErrNoValuesFound
	}
	return vals, nil
}

// decodeInt resolves a numeric argument; a path must match exactly one
// value.
func decodeInt(v IntOrPath, vm, ref *kubevirtv1.VirtualMachine) (int64, error) {
	if v.IsInt() {
		return v.Int, nil
	}
	res, err := v.Path.lookup(vm, ref)
	if err != nil {
		return 0, err
	}
	vals, err := res.ints()
	if err != nil {
		return 0, err
	}
	if len(vals) != 1 {
		return 0, fmt.Errorf("expected one value, found %v", len(vals))
	}
	return vals[0], nil
}

// decodeString resolves an enum value; a path must match exactly one
// value.
func decodeString(v StringOrPath, vm, ref *kubevirtv1.VirtualMachine) (string, error) {
	if v.IsString() {
		return v.Str, nil
	}
	res, err := v.Path.lookup(vm, ref)
	if err != nil {
		return "", err
	}
	vals, err := res.strings()
	if err != nil {
		return "", err
	}
	if len(vals) != 1 {
		return "", fmt.Errorf("expected one value, found %v", len(vals))
	}
	return vals[0], nil
}
