package cdi

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/kube/uploadtoken"
	"github.com/virtflow/virtflow/kube/webhookcert"
)

// The upload servers' certificate and the proxy's client certificate chain
// to one CA; the proxy mounts only its own pair and the bundle.
func TestTheProxyAndTheUploadServersShareACAOfTheirOwn(t *testing.T) {
	objs, err := install.Render(context.Background(), nil, cr(), "cdi-uploadproxy")
	require.NoError(t, err)
	secrets := map[string]*corev1.Secret{}
	var proxy *appsv1.Deployment
	for _, o := range objs {
		switch v := o.(type) {
		case *corev1.Secret:
			secrets[v.Name] = v
		case *appsv1.Deployment:
			proxy = v
		}
	}
	server, client := secrets[uploadtoken.ServerCertsSecret], secrets[uploadtoken.ClientCertsSecret]
	require.NotNil(t, server)
	require.NotNil(t, client)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(server.Data[webhookcert.BundleFile]))
	verify := func(data []byte, usage x509.ExtKeyUsage, name string) {
		b, _ := pem.Decode(data)
		require.NotNil(t, b)
		leaf, err := x509.ParseCertificate(b.Bytes)
		require.NoError(t, err)
		_, err = leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: name, KeyUsages: []x509.ExtKeyUsage{usage}})
		require.NoError(t, err)
	}
	verify(server.Data[webhookcert.CertFile], x509.ExtKeyUsageServerAuth, uploadtoken.ServerName)
	verify(client.Data[webhookcert.CertFile], x509.ExtKeyUsageClientAuth, "")

	require.NotNil(t, proxy)
	var mounted bool
	for _, v := range proxy.Spec.Template.Spec.Volumes {
		require.False(t, v.Secret != nil && v.Secret.SecretName == uploadtoken.ServerCertsSecret, "the proxy holds no server key")
		if v.Secret != nil && v.Secret.SecretName == uploadtoken.ClientCertsSecret {
			mounted = true
			for _, item := range v.Secret.Items {
				require.NotEqual(t, "ca.key", item.Key)
			}
		}
	}
	require.True(t, mounted)
	require.Contains(t, proxy.Spec.Template.Spec.Containers[0].Command, "--upload-server-tls-dir="+uploadtoken.ClientCertDir)
}
