package cdi

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/uploadtoken"
	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/kube/workloads"
)

// uploadServerClientCN is cdi-uploadproxy's name towards the upload
// servers.
const uploadServerClientCN = "cdi-uploadproxy"

// uploadServerCerts are the CA and certificate the nodes' upload servers
// serve with (the nodes mount it) and cdi-uploadproxy's client
// certificate of the same CA: an upload server takes no connection but
// the proxy's, and the proxy sends a user's image and token to no server
// but one of them. Rendered together, so the client's always chains to
// the servers' CA.
func uploadServerCerts(ctx context.Context, r client.Reader, ns string, l map[string]string) ([]client.Object, error) {
	server, _, err := workloads.ServingCert(ctx, r, ns, uploadtoken.ServerCertsSecret, []string{uploadtoken.ServerName}, l)
	if err != nil {
		return nil, err
	}
	data, err := workloads.ExistingSecretData(ctx, r, ns, uploadtoken.ClientCertsSecret)
	if err != nil {
		return nil, err
	}
	if _, err := webhookcert.EnsureClientData(data, server.Data, uploadServerClientCN, webhookcert.DefaultPolicy, time.Now()); err != nil {
		return nil, fmt.Errorf("issuing cdi-uploadproxy's client certificate: %w", err)
	}
	server.Data[webhookcert.BundleFile] = data[webhookcert.BundleFile]
	clientSecret := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uploadtoken.ClientCertsSecret, Labels: l},
		Data:       data,
	}
	return []client.Object{server, clientSecret}, nil
}

// uploadClientVolume projects the proxy's client pair and the CA bundle,
// never the CA's key.
func uploadClientVolume() corev1.Volume {
	return workloads.SecretVolume(uploadtoken.ClientCertsSecret, uploadtoken.ClientCertsSecret,
		webhookcert.CertFile, webhookcert.KeyFile, webhookcert.BundleFile)
}
