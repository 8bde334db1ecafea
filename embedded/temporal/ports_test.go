package temporal

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The server's services must never be given the same port twice.
func TestFreePortsAreNeverHandedOutTwice(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 300; i++ {
		port := mustFreePort()
		require.False(t, seen[port], "port %d handed out twice", port)
		seen[port] = true
	}
}
