package addons

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTheDNSServiceTakesTheTenthAddressOfTheRange(t *testing.T) {
	ip, err := DNSServiceIP("10.0.0.0/24")
	require.NoError(t, err)
	require.Equal(t, "10.0.0.10", ip)
	ip, err = DNSServiceIP("10.96.0.0/12")
	require.NoError(t, err)
	require.Equal(t, "10.96.0.10", ip)
	_, err = DNSServiceIP("10.0.0.0/29")
	require.ErrorContains(t, err, "no tenth address")
	_, err = DNSServiceIP("nonsense")
	require.Error(t, err)
}
