package templateprocess

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seeded is the generator's random source as upstream's tests build it.
func seeded(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }

// TestGenerateValueGivesUpstreamValuesForASeed checks the values library-go's
// own tests expect from seed 1337: same characters, same draws.
func TestGenerateValueGivesUpstreamValuesForASeed(t *testing.T) {
	for from, want := range map[string]string{
		"test[A-Z0-9]{4}template":             "testQ3HVtemplate",
		`[\d]{3}`:                             "889",
		`[\w]{20}`:                            "hiG4uRbcUDd5PEJLyHZ7",
		`[\a]{10}`:                            "4U390O49B9",
		`[\A]{10}`:                            ")^&-|_:[><",
		`strongPassword[\w]{3}[\A]{3}`:        "strongPasswordhiG-|_",
		"admin[0-9]{2}[A-Z]{2}":               "admin78YB",
		"admin[0-9]{2}test[A-Z]{2}":           "admin78testYB",
		"no constructs, kept as it is":        "no constructs, kept as it is",
		"[a-z]{3} and [a-z]{3} differ":        "ndy and bqx differ",
		"fedora-[a-z0-9]{16}":                 "fedora-q3hvwcqf26csrh15",
		"[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}": "q3hv-wcqf-26cs",
		// "\ba" reads as the class \a: the pair's ends are "\" and "a".
		`[\ba-z]{3}`: "4U3",
	} {
		got, err := GenerateValue(from, seeded(1337))
		require.NoError(t, err, from)
		require.Equal(t, want, got, from)
	}
}

// TestGenerateValueDrawsFromTheRanges checks each range kind's characters
// and count, over many draws.
func TestGenerateValueDrawsFromTheRanges(t *testing.T) {
	for from, pattern := range map[string]string{
		"[a-z0-9]{5}":   `^[a-y0-8]{5}$`,
		`[\w]{8}`:       `^[a-zA-Z0-9_]{8}$`,
		`[\a]{10}`:      `^[a-zA-Z0-9]{10}$`,
		`[\d]{6}`:       `^[0-9]{6}$`,
		`[\A]{4}`:       "^[" + regexp.QuoteMeta(symbolChars) + "]{4}$",
		"x[A-C]{3}y":    `^x[AB]{3}y$`,
		"[a-cx-z]{200}": `^[abxy]{200}$`,
		"[a-z]{255}":    `^[a-y]{255}$`,
	} {
		random := seeded(7)
		for i := 0; i < 50; i++ {
			got, err := GenerateValue(from, random)
			require.NoError(t, err, from)
			require.Regexp(t, pattern, got, from)
		}
	}
}

// TestGenerateValueLeavesOutTheUpperBound pins upstream's off-by-one: a
// range stops before its last character, so no amount of draws yields it.
func TestGenerateValueLeavesOutTheUpperBound(t *testing.T) {
	random := seeded(1)
	var all strings.Builder
	for i := 0; i < 20; i++ {
		v, err := GenerateValue("[a-z0-9]{255}", random)
		require.NoError(t, err)
		all.WriteString(v)
	}
	require.NotContains(t, all.String(), "z")
	require.NotContains(t, all.String(), "9")
	require.Contains(t, all.String(), "y")
	require.Contains(t, all.String(), "8")
}

// TestGenerateValueErrors checks upstream's texts (its misspelling of
// "expression" included) and the error returned where upstream panics.
func TestGenerateValueErrors(t *testing.T) {
	for from, want := range map[string]string{
		"[ABC]{3}":           "malformed expresion syntax: [ABC]",
		"pre[a]{3}":          "malformed expresion syntax: [a]",
		"[Z-A]{3}":           "invalid range specified: Z-A",
		"[a-zZ-A]{3}":        "invalid range specified: Z-A",
		`[\b-z]{3}`:          `invalid range specified: \-z`,
		"[A-Z]{300}":         "range must be within [1-255] characters (300)",
		"[A-Z]{256}":         "range must be within [1-255] characters (256)",
		"[A-Z]{0}":           "range must be within [1-255] characters (0)",
		"ok[a-z]{2}[A-Z]{0}": "range must be within [1-255] characters (0)",
		"[a-a]{3}":           "no characters to generate from in [a-a]",
	} {
		got, err := GenerateValue(from, seeded(1))
		require.EqualError(t, err, want, from)
		require.Empty(t, got, from)
	}
}

// TestDropDuplicatesKeepsUpstreamOrder uses library-go's own cases: the
// order decides which character a random index picks.
func TestDropDuplicatesKeepsUpstreamOrder(t *testing.T) {
	for in, want := range map[string]string{
		"abcdefgh":   "abcdefgh",
		"abcabc":     "abc",
		"1111111":    "1",
		"1234567890": "1234567890",
		"test@@":     "tes@",
		"abcba":      "abc",
		"":           "",
	} {
		require.Equal(t, want, dropDuplicates(in), in)
	}
}
