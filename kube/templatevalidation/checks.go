package templatevalidation

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// check is the outcome of applying a well-formed rule: whether it holds,
// and upstream's description of what was found, which becomes the cause
// or warning text.
type check struct {
	satisfied bool
	detail    string
}

// apply runs the rule's type-specific check. Errors are rules that cannot
// be evaluated (bad arguments, paths that resolve nowhere or to nothing).
func apply(r *Rule, vm, ref *kubevirtv1.VirtualMachine) (check, error) {
	switch r.Type {
	case IntegerRule:
		return applyInteger(r, vm, ref)
	case StringRule:
		return applyString(r, vm, ref)
	case EnumRule:
		return applyEnum(r, vm, ref)
	case RegexRule:
		return applyRegex(r, vm, ref)
	}
	return check{}, ErrUnrecognizedRuleType
}

func applyInteger(r *Rule, vm, ref *kubevirtv1.VirtualMachine) (check, error) {
	b, err := decodeBounds(r.Min, r.Max, vm, ref)
	if err != nil {
		return check{}, err
	}
	vals, err := lookupInts(r.Path, vm, ref)
	if err != nil {
		return check{}, err
	}
	for _, v := range vals {
		if !b.includes(v) {
			return check{detail: b.violations(vals)}, nil
		}
	}
	lo, hi := b.text()
	return check{satisfied: true, detail: fmt.Sprintf("All values %v are in interval [%s, %s]", vals, lo, hi)}, nil
}

func applyString(r *Rule, vm, ref *kubevirtv1.VirtualMachine) (check, error) {
	b, err := decodeBounds(r.MinLength, r.MaxLength, vm, ref)
	if err != nil {
		return check{}, err
	}
	vals, err := lookupStrings(r.Path, vm, ref)
	if err != nil {
		return check{}, err
	}
	lo, hi := b.text()
	for _, v := range vals {
		if !b.includes(int64(len(v))) {
			return check{detail: fmt.Sprintf("Lengths of some strings are not in interval [%s, %s]", lo, hi)}, nil
		}
	}
	// "Lengts" is upstream's spelling; it only shows in reports.
	return check{satisfied: true, detail: fmt.Sprintf("Lengts of all strings are in interval [%s, %s]", lo, hi)}, nil
}

func applyEnum(r *Rule, vm, ref *kubevirtv1.VirtualMachine) (check, error) {
	allowed := make([]string, 0, len(r.Values))
	for _, v := range r.Values {
		s, err := decodeString(v, vm, ref)
		if err != nil {
			return check{}, err
		}
		allowed = append(allowed, s)
	}
	vals, err := lookupStrings(r.Path, vm, ref)
	if err != nil {
		return check{}, err
	}
	found, want := strings.Join(vals, ", "), strings.Join(allowed, ", ")
	if !containsOnly(vals, allowed) {
		return check{detail: fmt.Sprintf("Some of [%s] are not in [%s]", found, want)}, nil
	}
	return check{satisfied: true, detail: fmt.Sprintf("All [%s] are in [%s]", found, want)}, nil
}

func applyRegex(r *Rule, vm, ref *kubevirtv1.VirtualMachine) (check, error) {
	re, err := regexp.Compile(r.Regex)
	if err != nil {
		return check{}, err
	}
	vals, err := lookupStrings(r.Path, vm, ref)
	if err != nil {
		return check{}, err
	}
	found := strings.Join(vals, ", ")
	for _, v := range vals {
		if !re.MatchString(v) {
			return check{detail: fmt.Sprintf("Some of [%s] do not match %s", found, re)}, nil
		}
	}
	return check{satisfied: true, detail: fmt.Sprintf("All [%s] match %s", found, re)}, nil
}

func containsOnly(vals, allowed []string) bool {
	for _, v := range vals {
		ok := false
		for _, a := range allowed {
			if v == a {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// bounds is an inclusive interval whose ends may be open.
type bounds struct {
	min, max       int64
	minSet, maxSet bool
}

func decodeBounds(lo, hi *IntOrPath, vm, ref *kubevirtv1.VirtualMachine) (bounds, error) {
	var b bounds
	var err error
	if lo != nil {
		if b.min, err = decodeInt(*lo, vm, ref); err != nil {
			return bounds{}, err
		}
		b.minSet = true
	}
	if hi != nil {
		if b.max, err = decodeInt(*hi, vm, ref); err != nil {
			return bounds{}, err
		}
		b.maxSet = true
	}
	return b, nil
}

func (b bounds) includes(v int64) bool {
	return !(b.minSet && v < b.min) && !(b.maxSet && v > b.max)
}

// text renders the ends as upstream does, "N/A" for an open end.
func (b bounds) text() (lo, hi string) {
	lo, hi = "N/A", "N/A"
	if b.minSet {
		lo = strconv.FormatInt(b.min, 10)
	}
	if b.maxSet {
		hi = strconv.FormatInt(b.max, 10)
	}
	return lo, hi
}

// violations describes every value out of bounds. Like upstream it emits
// one ", "-separated slot per value, empty for values within bounds, so
// [1 5 10] in [2, 8] reads "value 1 ..., , value 10 ...".
func (b bounds) violations(vals []int64) string {
	lo, hi := b.text()
	var sb strings.Builder
	for i, v := range vals {
		if b.minSet && v < b.min {
			fmt.Fprintf(&sb, "value %v is lower than minimum [%s]", v, lo)
		}
		if b.maxSet && v > b.max {
			fmt.Fprintf(&sb, "value %v is higher than maximum [%s]", v, hi)
		}
		if i != len(vals)-1 {
			sb.WriteString(", ")
		}
	}
	return sb.String()
}
