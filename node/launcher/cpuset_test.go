package launcher

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTheKernelsCPUListIsRead(t *testing.T) {
	got, err := parseCPUList("0-2,5,8-9")
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2, 5, 8, 9}, got)
	_, err = parseCPUList("0-x")
	require.ErrorContains(t, err, `CPU list "0-x"`)
}
