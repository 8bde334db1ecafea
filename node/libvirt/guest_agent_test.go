package libvirt

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The agent's report is rendered as upstream's guestosinfo, the time zone
// as "<name>, <offset seconds>".
func TestAgentInfoIsUpstreamsShape(t *testing.T) {
	info := GuestInfo{Hostname: "guest1", TimeZone: "CET", TimeZoneOffset: 3600,
		OS: GuestOS{ID: "virtflow-test-guest", KernelRelease: "6.1.0", PrettyName: "virtflow test guest"}}.AgentInfo()
	require.Equal(t, "guest1", info.Hostname)
	require.Equal(t, "CET, 3600", info.Timezone)
	require.Equal(t, "virtflow-test-guest", info.OS.ID)
	require.Equal(t, "6.1.0", info.OS.KernelRelease)
	require.Equal(t, "virtflow test guest", info.OS.PrettyName)
}
