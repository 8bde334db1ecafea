package componentoperator

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, name string, args ...string) (settings, error) {
	t.Helper()
	var s settings
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	s.flags(fs, name)
	return s, fs.Parse(args)
}

func TestOnlyTheOperatorsThatReachTemporalTakeItsFlags(t *testing.T) {
	for _, name := range []string{"hostpath-provisioner-operator", "cluster-network-addons-operator"} {
		_, err := parse(t, name, "--temporal-address=10.0.0.1:7233")
		require.Error(t, err, "%s has no use for Temporal", name)
	}
	s, err := parse(t, "virt-operator", "--temporal-address=10.0.0.1:7233")
	require.NoError(t, err)
	require.Nil(t, s.componentsTLS(), "no --temporal-tls: the components dial in plaintext")
	s, err = parse(t, "cdi-operator", "--temporal-tls", "--temporal-tls-server-name=temporal.example")
	require.NoError(t, err)
	require.Equal(t, "temporal.example", s.componentsTLS().ServerName)
	s, err = parse(t, "ssp-operator", "--temporal-address=10.0.0.1:7233", "--temporal-tls-cert=/c", "--temporal-tls-key=/k", "--temporal-tls-ca=/ca")
	require.NoError(t, err)
	require.Equal(t, "/c", s.own.TLS.Cert, "ssp-operator dials with its own certificate")
}

func TestTheNetworkOperatorTakesTheNodesCNIDirectories(t *testing.T) {
	s, err := parse(t, "cluster-network-addons-operator", "--cni-bin-dir=/data/node/cni/bin", "--cni-conf-dir=/data/node/cni/net.d", "--multus-image=virtflow.local/multus:v4.2.2")
	require.NoError(t, err)
	_, render, err := s.operator("cluster-network-addons-operator", "img")
	require.NoError(t, err)
	require.NotNil(t, render)
	require.Equal(t, "/data/node/cni/bin", s.network.CNIBinDir)
	require.Equal(t, "/data/node/cni/net.d", s.network.CNIConfDir)
	require.Equal(t, "virtflow.local/multus:v4.2.2", s.network.MultusImage)
	_, err = parse(t, "virt-operator", "--cni-bin-dir=/x")
	require.Error(t, err, "only the network operator has CNI directories")
}
