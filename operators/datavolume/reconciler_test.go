package datavolume

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPollIntervalFollowsAge(t *testing.T) {
	require.Equal(t, 200*time.Millisecond, pollInterval(time.Second))
	require.Equal(t, 500*time.Millisecond, pollInterval(5*time.Second))
	require.Equal(t, 2*time.Second, pollInterval(time.Hour))
}
