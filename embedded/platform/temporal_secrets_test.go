package platform

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/temporalauth"
	"github.com/virtflow/virtflow/embedded/temporal"
)

func secretCN(t *testing.T, c client.Client, name string) (string, *corev1.Secret) {
	t.Helper()
	s := &corev1.Secret{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: name}, s))
	block, _ := pem.Decode(s.Data[temporalauth.CertKey])
	require.NotNil(t, block, name)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	return cert.Subject.CommonName, s
}

func TestEachInClusterIdentityGetsItsOwnCertificateInItsSecret(t *testing.T) {
	ctx := context.Background()
	pki, err := temporal.EnsurePKI(t.TempDir(), nil)
	require.NoError(t, err)
	c := fake.NewClientBuilder().Build()
	require.NoError(t, writeTemporalSecrets(ctx, c, pki))
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: Namespace}, &corev1.Namespace{}), "the namespace exists before the Secrets")
	for _, id := range temporalauth.InCluster() {
		cn, s := secretCN(t, c, temporalauth.SecretName(id))
		require.Equal(t, id, cn)
		require.Equal(t, corev1.SecretTypeTLS, s.Type)
		ca, err := os.ReadFile(pki.CA())
		require.NoError(t, err)
		require.Equal(t, ca, s.Data[temporalauth.CAKey])
		require.NotEmpty(t, s.Data[temporalauth.KeyKey])
	}
	admin := &corev1.SecretList{}
	require.NoError(t, c.List(ctx, admin))
	require.Len(t, admin.Items, len(temporalauth.InCluster()), "the admin's certificate stays on the host")

	_, before := secretCN(t, c, temporalauth.SecretName(temporalauth.Console))
	require.NoError(t, os.Remove(pki.Cert(temporalauth.Console)))
	_, err = temporal.EnsurePKI(pki.Dir, nil)
	require.NoError(t, err)
	require.NoError(t, writeTemporalSecrets(ctx, c, pki))
	_, after := secretCN(t, c, temporalauth.SecretName(temporalauth.Console))
	require.NotEqual(t, before.Data[temporalauth.CertKey], after.Data[temporalauth.CertKey], "a re-issued certificate replaces the Secret's")
}
