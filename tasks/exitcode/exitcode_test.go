package exitcode

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithAndOf(t *testing.T) {
	require.NoError(t, With(nil, 255))

	base := errors.New("bad options")
	err := fmt.Errorf("step: %w", With(base, 255))
	assert.EqualError(t, err, "step: bad options")
	assert.ErrorIs(t, err, base)
	code, ok := Of(err)
	assert.True(t, ok)
	assert.Equal(t, 255, code)

	var coded interface{ ExitCode() int }
	require.ErrorAs(t, err, &coded, "what cmd/virtflow-tasks looks for")
	assert.Equal(t, 255, coded.ExitCode())

	_, ok = Of(base)
	assert.False(t, ok)
	_, ok = Of(nil)
	assert.False(t, ok)
}
