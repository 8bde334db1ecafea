package controlplane

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func apiserverCert(t *testing.T, dir string) *x509.Certificate {
	data, err := os.ReadFile(filepath.Join(dir, "apiserver.crt"))
	require.NoError(t, err)
	block, _ := pem.Decode(data)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	return cert
}

// A resumed cluster keeps its certificates, except a server certificate
// that lacks an address it must now carry (the node bridge's).
func TestPKIIsKeptAndTheServerCertificateFollowsItsAddresses(t *testing.T) {
	dir := t.TempDir()
	loopback := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.0.0.1")}
	require.NoError(t, ensurePKI(dir, loopback))
	first := apiserverCert(t, dir)
	admin, err := os.ReadFile(filepath.Join(dir, "admin.crt"))
	require.NoError(t, err)

	require.NoError(t, ensurePKI(dir, loopback))
	require.Equal(t, first.SerialNumber, apiserverCert(t, dir).SerialNumber, "nothing new to name: kept")

	withBridge := append(loopback, net.ParseIP("10.244.0.1"))
	require.NoError(t, ensurePKI(dir, withBridge))
	again := apiserverCert(t, dir)
	require.NotEqual(t, first.SerialNumber, again.SerialNumber)
	require.Len(t, again.IPAddresses, 3)
	require.True(t, again.IPAddresses[2].Equal(net.ParseIP("10.244.0.1")))
	after, err := os.ReadFile(filepath.Join(dir, "admin.crt"))
	require.NoError(t, err)
	require.Equal(t, admin, after, "client certificates are kept")
}

func TestAPIServerIPsNameLoopbackTheAddressAndTheKubernetesService(t *testing.T) {
	cp := &ControlPlane{cfg: withDefaults(Config{Address: "10.244.0.1", ServiceClusterIPRange: "10.96.0.0/12"})}
	var got []string
	for _, ip := range cp.apiserverIPs() {
		got = append(got, ip.String())
	}
	require.Equal(t, []string{"127.0.0.1", "10.244.0.1", "10.96.0.1"}, got)
	require.Equal(t, "https://10.244.0.1:"+strconv.Itoa(cp.cfg.APIServerPort), cp.Server())
	plain := &ControlPlane{cfg: withDefaults(Config{})}
	require.Len(t, plain.apiserverIPs(), 2, "loopback and 10.0.0.1, as before")
}
