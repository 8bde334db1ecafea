package templateprocess

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// The reference patterns are library-go's: which texts count as a
// reference is part of the template format.
var (
	// stringRefExp matches ${NAME} anywhere in a string.
	stringRefExp = regexp.MustCompile(`\$\{([a-zA-Z0-9\_]+?)\}`)
	// rawRefExp matches a string that is exactly ${{NAME}}.
	rawRefExp = regexp.MustCompile(`^\$\{\{([a-zA-Z0-9\_]+)\}\}$`)
)

// Substitute replaces parameter references in s with values, as library-go
// does in a template's message, labels and objects. A string that is
// exactly "${{NAME}}" of a known parameter becomes the parameter's value
// and raw is true: in an object the value then stands for a JSON value, not
// a string. Otherwise every "${NAME}" of a known parameter is replaced;
// references to unknown parameters, and "${{NAME}}" inside a longer
// string, are left as they are.
func Substitute(values map[string]string, s string) (out string, raw bool) {
	if m := rawRefExp.FindStringSubmatch(s); m != nil {
		if v, ok := values[m[1]]; ok {
			return v, true
		}
	}
	out = s
	for _, m := range stringRefExp.FindAllStringSubmatch(s, -1) {
		if v, ok := values[m[1]]; ok {
			// Upstream replaces the first occurrence in the text built so
			// far, so a value that itself holds a reference can be hit;
			// doing the same keeps such templates' output identical.
			out = strings.Replace(out, m[0], v, 1)
		}
	}
	return out, false
}

// substituteString is what a JSON string of an object becomes: the
// substituted string, or for a raw reference the value decoded as JSON
// (numbers as float64, as upstream's encoding/json decoding gives them),
// kept as a string when it is not JSON.
func substituteString(values map[string]string, s string) interface{} {
	out, raw := Substitute(values, s)
	if !raw {
		return out
	}
	var decoded interface{}
	if err := json.Unmarshal([]byte(out), &decoded); err != nil {
		return out
	}
	return decoded
}

// substituteTree substitutes every string in a decoded JSON value, in
// place where it can, and returns the value to store.
func substituteTree(values map[string]string, v interface{}) interface{} {
	switch t := v.(type) {
	case string:
		return substituteString(values, t)
	case map[string]interface{}:
		substituteMap(values, t)
	case []interface{}:
		// A raw reference to JSON null becomes a null element here, where
		// upstream's reflection panics.
		for i := range t {
			t[i] = substituteTree(values, t[i])
		}
	}
	return v
}

// substituteMap substitutes the keys and values of an object. Keys are
// visited in order so that two keys substituted to the same text resolve
// the same way every time (upstream's order is Go's map order).
func substituteMap(values map[string]string, m map[string]interface{}) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		delete(m, k)
		nv := substituteTree(values, v)
		if _, wasString := v.(string); wasString && nv == nil {
			// A raw reference to JSON null removes the field: upstream
			// stores the invalid reflect value, which deletes the key.
			continue
		}
		m[substituteKey(values, k)] = nv
	}
}

// substituteKey substitutes a key. A raw reference whose value decodes to
// a JSON string gives that string, as upstream; one that decodes to any
// other JSON value (where upstream panics) keeps the value's text.
func substituteKey(values map[string]string, k string) string {
	if s, ok := substituteString(values, k).(string); ok {
		return s
	}
	out, _ := Substitute(values, k)
	return out
}
