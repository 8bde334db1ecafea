package frontproxy

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// caPEM is a self-signed CA certificate, enough for the pool to accept.
func caPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "front-proxy-ca"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func trustWith(t *testing.T, names string, set bool) ([]string, error) {
	t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "extension-apiserver-authentication"},
		Data:       map[string]string{"requestheader-client-ca-file": caPEM(t)},
	}
	if set {
		cm.Data["requestheader-allowed-names"] = names
	}
	_, allowed, err := Trust(context.Background(), fake.NewClientBuilder().WithObjects(cm).Build())
	return allowed, err
}

// A malformed list of allowed names must stop the server, not let every
// certificate of the CA through.
func TestTrustRefusesAMalformedListOfAllowedNames(t *testing.T) {
	_, err := trustWith(t, `front-proxy-client`, true)
	require.ErrorContains(t, err, "requestheader-allowed-names")

	allowed, err := trustWith(t, `["front-proxy-client"]`, true)
	require.NoError(t, err)
	require.Equal(t, []string{"front-proxy-client"}, allowed)

	allowed, err = trustWith(t, "", false)
	require.NoError(t, err)
	require.Empty(t, allowed, "no list: every certificate of the CA, as the kube-apiserver documents")
}
