package templateprocess

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

var testValues = map[string]string{
	"VALUE":              "1",
	"STRING_1":           "string1",
	"STRING_2":           "string2",
	"INT_1":              "1",
	"BOOL":               "true",
	"NUL":                "null",
	"VALID_JSON_MAP":     `{"key":"value"}`,
	"INVALID_JSON_MAP":   `{"key":"value"`,
	"VALID_JSON_ARRAY":   `["key","value"]`,
	"INVALID_JSON_ARRAY": `["key":"value"`,
	"QUOTED":             `"quoted"`,
	"REF":                "${STRING_2}",
	"EMPTY":              "",
}

// TestSubstitute covers ${NAME} and ${{NAME}} in a single string.
func TestSubstitute(t *testing.T) {
	tests := []struct {
		in, out string
		raw     bool
	}{
		{"${VALUE}", "1", false},
		{"v${VALUE}", "v1", false},
		{"$${VALUE}", "$1", false},
		{"${STRING_1}_${STRING_1}", "string1_string1", false},
		{"${STRING_1}_${STRING_2}", "string1_string2", false},
		{"${MISSING}/${STRING_1}", "${MISSING}/string1", false},
		{"${{INT_1}}", "1", true},
		{"${{STRING_1}}", "string1", true},
		{"${{EMPTY}}", "", true},
		{"a${{INT_1}}", "a${{INT_1}}", false},
		{"${{INT_1}}a", "${{INT_1}}a", false},
		{"${{MISSING}}", "${{MISSING}}", false},
		{"${{INVALID NAME}}", "${{INVALID NAME}}", false},
		{"${lower_case_9}", "${lower_case_9}", false},
		{"${}", "${}", false},
		// A value holding a reference is not substituted again, but a
		// later reference replaces the first matching text, which may now
		// be inside the earlier value: upstream's order, kept.
		{"${REF}", "${STRING_2}", false},
		{"${REF}-${STRING_2}", "string2-${STRING_2}", false},
		{"", "", false},
	}
	for _, tt := range tests {
		out, raw := Substitute(testValues, tt.in)
		require.Equal(t, tt.out, out, tt.in)
		require.Equal(t, tt.raw, raw, tt.in)
	}
}

// decodeJSON is a test object as the unstructured decoder gives it.
func decodeJSON(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	return m
}

// TestSubstituteMapGivesUpstreamJSON is library-go's TestProcessValue
// object with its expected result, plus keys, lists and null.
func TestSubstituteMapGivesUpstreamJSON(t *testing.T) {
	obj := decodeJSON(t, `{"kind":"Service","apiVersion":"v${VALUE}","metadata":{"labels":{
		"i1":"${{INT_1}}","invalidjsonmap":"${{INVALID_JSON_MAP}}","invalidjsonarray":"${{INVALID_JSON_ARRAY}}",
		"key1":"${VALUE}","key2":"$${VALUE}","quoted_string":"${{STRING_1}}",
		"s1_s1":"${STRING_1}_${STRING_1}","s1_s2":"${STRING_1}_${STRING_2}",
		"untouched":"a${{INT_1}}","untouched2":"${{INT_1}}a","untouched3":"${{INVALID_PARAMETER}}",
		"untouched4":"${{INVALID PARAMETER}}","validjsonmap":"${{VALID_JSON_MAP}}","validjsonarray":"${{VALID_JSON_ARRAY}}"}}}`)
	substituteMap(testValues, obj)
	got, err := json.Marshal(obj)
	require.NoError(t, err)
	require.Equal(t, `{"apiVersion":"v1","kind":"Service","metadata":{"labels":{"i1":1,"invalidjsonarray":"[\"key\":\"value\"","invalidjsonmap":"{\"key\":\"value\"","key1":"1","key2":"$1","quoted_string":"string1","s1_s1":"string1_string1","s1_s2":"string1_string2","untouched":"a${{INT_1}}","untouched2":"${{INT_1}}a","untouched3":"${{INVALID_PARAMETER}}","untouched4":"${{INVALID PARAMETER}}","validjsonarray":["key","value"],"validjsonmap":{"key":"value"}}}}`, string(got))
}

// TestSubstituteMapWalksEverything covers nesting, lists, keys, kept
// non-strings and the ${{NAME}} edge values.
func TestSubstituteMapWalksEverything(t *testing.T) {
	tests := []struct{ name, in, out string }{
		{"nested lists and maps", `{"a":[["${STRING_1}"],{"b":"${{BOOL}}"}],"c":{"d":{"e":"${{INT_1}}"}}}`,
			`{"a":[["string1"],{"b":true}],"c":{"d":{"e":1}}}`},
		{"non-strings kept", `{"n":3,"f":1.5,"b":false,"z":null}`, `{"b":false,"f":1.5,"n":3,"z":null}`},
		{"keys substituted", `{"${STRING_1}":"x","k-${VALUE}":{"${STRING_2}":"y"}}`,
			`{"k-1":{"string2":"y"},"string1":"x"}`},
		{"raw key decoding to a string", `{"${{QUOTED}}":1,"${{STRING_1}}":2}`, `{"quoted":1,"string1":2}`},
		{"raw key decoding to a non-string keeps its text", `{"${{BOOL}}":1}`, `{"true":1}`},
		{"raw null removes the field", `{"a":"${{NUL}}","b":1}`, `{"b":1}`},
		{"raw null in a list is null", `{"a":["${{NUL}}",1]}`, `{"a":[null,1]}`},
		{"raw empty value stays a string", `{"a":"${{EMPTY}}"}`, `{"a":""}`},
		{"substituted JSON is not walked again", `{"a":"${{VALID_JSON_ARRAY}}","b":"${{REF}}"}`,
			`{"a":["key","value"],"b":"${STRING_2}"}`},
		{"HTML characters", `{"a":"<${STRING_1}>&"}`, `{"a":"\u003cstring1\u003e\u0026"}`},
	}
	for _, tt := range tests {
		obj := decodeJSON(t, tt.in)
		substituteMap(testValues, obj)
		got, err := json.Marshal(obj)
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.out, string(got), tt.name)
	}
}

// TestSubstituteMapLetsASubstitutedKeyWin pins a key substituted onto a
// literal key: upstream gives the substituted key's value in either map
// order, since the literal key is revisited after being overwritten.
func TestSubstituteMapLetsASubstitutedKeyWin(t *testing.T) {
	obj := decodeJSON(t, `{"${STRING_1}":"from reference","string1":"literal"}`)
	substituteMap(testValues, obj)
	require.Equal(t, map[string]interface{}{"string1": "from reference"}, obj)
}
