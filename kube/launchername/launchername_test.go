package launchername

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestANameIsStablePerSeedAndLooksGenerated(t *testing.T) {
	require.Equal(t, For("vm", "u1"), For("vm", "u1"))
	require.NotEqual(t, For("vm", "u1"), For("vm", "u2"))
	require.Regexp(t, `^virt-launcher-vm-[bcdfghjklmnpqrstvwxz2456789]{5}$`, For("vm", "u1"))
	require.Len(t, For(strings.Repeat("v", 80), "u1"), 63, "a pod name stays a DNS label")
}
