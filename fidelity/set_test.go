package fidelity

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// set walks segs (JSON names, "[]" marking a list) from v, making what is
// missing on the way, and sets the field it ends at to value, or to a
// generic non-zero value when value is nil. In a list it takes the last
// element, adding one to an empty list, so an entry's prep can add the
// element a field is set on.
func set(t *testing.T, v reflect.Value, segs []string, value any) {
	if len(segs) == 0 {
		setLeaf(t, v, value)
		return
	}
	name, list := strings.CutSuffix(segs[0], "[]")
	f := fieldByJSON(v, name)
	require.True(t, f.IsValid(), "no field %s in %s", name, v.Type())
	if list {
		f = deref(f)
		if f.Len() == 0 {
			f.Set(reflect.Append(f, reflect.Zero(f.Type().Elem())))
		}
		f = f.Index(f.Len() - 1)
	}
	if len(segs) == 1 {
		setLeaf(t, f, value)
		return
	}
	set(t, deref(f), segs[1:], value)
}

// deref follows pointers, allocating nil ones.
func deref(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	return v
}

// fieldByJSON finds a struct field by JSON name, looking into inlined
// structs; an inlined pointer is allocated only on the way to the field.
func fieldByJSON(v reflect.Value, name string) reflect.Value {
	v = deref(v)
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		tag := strings.Split(f.Tag.Get("json"), ",")[0]
		if tag == name {
			return v.Field(i)
		}
		if f.Anonymous && tag == "" && hasJSONField(f.Type, name) {
			return fieldByJSON(v.Field(i), name)
		}
	}
	return reflect.Value{}
}

func hasJSONField(t reflect.Type, name string) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("json"), ",")[0]
		if tag == name || (f.Anonymous && tag == "" && hasJSONField(f.Type, name)) {
			return true
		}
	}
	return false
}

func setLeaf(t *testing.T, f reflect.Value, value any) {
	target := f
	if f.Kind() == reflect.Pointer {
		target = deref(f)
	}
	if value == nil {
		if target.Kind() == reflect.Struct && target.NumField() == 0 {
			return // made on the way: an empty struct is set by being there
		}
		setGeneric(t, target)
		return
	}
	val := reflect.ValueOf(value)
	switch {
	case val.Type().ConvertibleTo(target.Type()):
		target.Set(val.Convert(target.Type()))
	case target.Kind() == reflect.Struct:
		// An inlined Kubernetes struct: set the embedded field of the
		// value's type, however deep.
		if !setEmbedded(target, val) {
			t.Fatalf("cannot put a %s into %s", val.Type(), target.Type())
		}
	default:
		t.Fatalf("cannot put a %s into %s", val.Type(), target.Type())
	}
}

func setGeneric(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	default:
		t.Fatalf("%s needs a value in its entry", v.Type())
	}
}

func setEmbedded(target, val reflect.Value) bool {
	for i := 0; i < target.NumField(); i++ {
		f := target.Type().Field(i)
		switch {
		case f.Type == val.Type():
			target.Field(i).Set(val)
			return true
		case f.Anonymous && f.Type.Kind() == reflect.Struct && setEmbedded(target.Field(i), val):
			return true
		}
	}
	return false
}
