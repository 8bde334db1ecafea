package shellwords

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplit(t *testing.T) {
	cases := map[string][]string{
		"":                                   nil,
		"   ":                                nil,
		"--network --dry-run":                {"--network", "--dry-run"},
		"  -q\t-v\n-x ":                      {"-q", "-v", "-x"},
		`--hostname 'my host'`:               {"--hostname", "my host"},
		`--run-command "echo \"hi\" \$HOME"`: {"--run-command", `echo "hi" $HOME`},
		`"a\b"`:                              {`a\b`},
		`a\ b c`:                             {"a b", "c"},
		`''`:                                 {""},
		`pre'mid'"post"`:                     {"premidpost"},
		"-o Port=2222 # the rest\n-v":        {"-o", "Port=2222", "-v"},
		"a#b":                                {"a#b"},
		"one\\\ntwo":                         {"onetwo"},
		`'it''s'`:                            {"its"},
	}
	for in, want := range cases {
		got, err := Split(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}

func TestSplitRejectsUnbalancedQuotes(t *testing.T) {
	for _, in := range []string{`--hostname 'my host`, `"open`, `a "b`, `trailing\`} {
		_, err := Split(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), "unbalanced quotes", in)
	}
	_, err := Split(`x 'y`)
	assert.EqualError(t, err, `unbalanced quotes: the ' at offset 2 of "x 'y" is never closed`)
}
