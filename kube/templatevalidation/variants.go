package templatevalidation

import (
	"encoding/json"
	"fmt"
	"strings"
)

// IntOrPath is a numeric rule argument (min, max, minLength, maxLength):
// a JSON number, or a "jsonpath::" string naming a field of the VM that
// holds the number. Quantity strings such as "1Gi" are not accepted, as
// upstream does not; templates write memory limits in bytes.
type IntOrPath struct {
	Int  int64
	Path *Path
}

// IsInt reports whether the argument is a literal number.
func (v IntOrPath) IsInt() bool { return v.Path == nil }

// MarshalJSON writes the number or the path string.
func (v IntOrPath) MarshalJSON() ([]byte, error) {
	if v.Path != nil {
		return json.Marshal(v.Path)
	}
	return json.Marshal(v.Int)
}

// UnmarshalJSON reads a number (rounded to an integer) or a jsonpath.
func (v *IntOrPath) UnmarshalJSON(data []byte) error {
	var number float64
	if err := json.Unmarshal(data, &number); err == nil {
		n, _ := toInt64(number)
		*v = IntOrPath{Int: n}
		return nil
	}
	var p Path
	if err := json.Unmarshal(data, &p); err != nil {
		// upstream's wording, including its spelling, reaches the user
		return fmt.Errorf("cannot unmarshall IntOrPath from JSON: %w", err)
	}
	*v = IntOrPath{Path: &p}
	return nil
}

// StringOrPath is an enum value: a literal string, or a "jsonpath::"
// string naming a field of the VM that holds the value.
type StringOrPath struct {
	Str  string
	Path *Path
}

// IsString reports whether the value is a literal.
func (v StringOrPath) IsString() bool { return v.Path == nil }

// MarshalJSON writes the literal or the path string.
func (v StringOrPath) MarshalJSON() ([]byte, error) {
	if v.Path != nil {
		return json.Marshal(v.Path)
	}
	return json.Marshal(v.Str)
}

// UnmarshalJSON reads a JSON string; only the "jsonpath::" prefix makes it
// a path.
func (v *StringOrPath) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	if !strings.HasPrefix(s, JSONPathPrefix) {
		*v = StringOrPath{Str: s}
		return nil
	}
	p, err := ParsePath(s)
	if err != nil {
		return err
	}
	*v = StringOrPath{Path: &p}
	return nil
}
