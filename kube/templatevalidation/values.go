package templatevalidation

import (
	"fmt"
	"math"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
)

// strings renders every match as a string. Named string types (DiskBus,
// MachineType...) render as their value; other kinds render as
// reflect's "<T Value>" placeholder, which is what upstream compares.
func (r results) strings() ([]string, error) {
	var out []string
	for _, vals := range r {
		for _, v := range vals {
			if !v.IsValid() {
				return nil, fmt.Errorf("mismatching type: %v, not string", v)
			}
			if v.CanInterface() {
				if s, ok := v.Interface().(string); ok {
					out = append(out, s)
					continue
				}
			}
			out = append(out, v.String())
		}
	}
	return out, nil
}

// ints reads every match as an integer: Go integers and floats (rounded),
// and resource quantities (memory sizes) as their integer value.
func (r results) ints() ([]int64, error) {
	var out []int64
	for _, vals := range r {
		for _, v := range vals {
			n, ok := intOf(v)
			if !ok {
				return nil, fmt.Errorf("mismatching type: %v, not int or resource.Quantity", typeOf(v))
			}
			out = append(out, n)
		}
	}
	return out, nil
}

func intOf(v reflect.Value) (int64, bool) {
	if !v.IsValid() || !v.CanInterface() {
		return 0, false
	}
	switch obj := v.Interface().(type) {
	case resource.Quantity:
		return obj.AsInt64()
	case *resource.Quantity:
		// A nil quantity (e.g. memory.guest unset beside other memory
		// fields) has no value; upstream would crash on it.
		if obj == nil {
			return 0, false
		}
		return obj.AsInt64()
	}
	return toInt64(v.Interface())
}

// toInt64 accepts exactly the builtin numeric types upstream accepts;
// named integer types and int8/int16/uint8/uint16 are not numbers to it.
func toInt64(obj any) (int64, bool) {
	switch val := obj.(type) {
	case int:
		return int64(val), true
	case int32:
		return int64(val), true
	case int64:
		return val, true
	case uint:
		return int64(val), true
	case uint32:
		return int64(val), true
	case uint64:
		return int64(val), true
	case float32:
		return int64(math.Round(float64(val))), true
	case float64:
		return int64(math.Round(val)), true
	}
	return 0, false
}

func typeOf(v reflect.Value) string {
	if !v.IsValid() {
		return "<invalid>"
	}
	return v.Type().String()
}
