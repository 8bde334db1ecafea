package keyvalues

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	got, err := Parse([]string{"", " NAME :my-vm", "URL:http://x:80", "DESC:one", "two", "E:"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"NAME": "my-vm", "URL": "http://x:80", "DESC": "one two", "E": ""}, got)
}

func TestParseErrors(t *testing.T) {
	for _, items := range [][]string{{"first"}, {" :x"}, {"", "lonely"}} {
		_, err := Parse(items)
		require.Error(t, err, items)
	}
	_, err := Parse([]string{"InvalidDescription"})
	assert.EqualError(t, err, `no key found before "InvalidDescription"; pair should be in "KEY:VAL" format`)
}
