package handler

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A replaced agent must not be Ready while virt-api would still find the
// old agent's address.
func TestTheAgentIsReadyOnlyOnceItsAddressIsPublished(t *testing.T) {
	a := &apiServer{}
	require.ErrorContains(t, a.ready(nil), "not published yet")
	a.published.Store(true)
	require.NoError(t, a.ready(nil))
}
