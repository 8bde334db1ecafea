package kubevirt

import (
	"context"
	"fmt"
	"time"

	"github.com/virtflow/virtflow/kube/uploadtoken"
	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/kube/workloads"
)

// The node agents' API is mutually authenticated, as upstream's: the
// agents serve with a certificate of a CA virt-operator keeps, and take
// only clients holding a certificate of the same CA, which only virt-api
// mounts. Names and mount paths are upstream's.
const (
	HandlerServerCerts   = "kubevirt-virt-handler-server-certs"
	HandlerClientCerts   = "kubevirt-virt-handler-certs"
	HandlerServerCertDir = "/etc/virt-handler/servercertificates"
	HandlerClientCertDir = "/etc/virt-handler/clientcertificates"
	// HandlerServerName is the name the agents' certificate carries and
	// virt-api verifies, whatever address an agent listens on.
	HandlerServerName = "virt-handler"
	handlerClientCN   = "kubevirt.io:system:client:virt-handler"
)

// handlerObjects are virt-handler's DaemonSet, identity and the two
// Secrets of its API's certificates. Both are rendered here, with the
// agents, so the client certificate is always signed by the CA the
// agents trust; virt-api's pod waits for its Secret to exist.
func (in Install) handlerObjects(ctx context.Context, c client.Reader, ns string) ([]client.Object, error) {
	l := labels("virt-handler")
	server, _, err := workloads.ServingCert(ctx, c, ns, HandlerServerCerts, []string{HandlerServerName}, l)
	if err != nil {
		return nil, err
	}
	clientData, err := workloads.ExistingSecretData(ctx, c, ns, HandlerClientCerts)
	if err != nil {
		return nil, err
	}
	if _, err := webhookcert.EnsureClientData(clientData, server.Data, handlerClientCN, webhookcert.DefaultPolicy, time.Now()); err != nil {
		return nil, fmt.Errorf("issuing virt-api's node agent client certificate: %w", err)
	}
	server.Data[webhookcert.BundleFile] = clientData[webhookcert.BundleFile]
	clientSecret := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: HandlerClientCerts, Labels: l},
		Data:       clientData,
	}
	objs := []client.Object{in.handler(ns), server, clientSecret}
	return append(objs, identity(ns, "virt-handler")...), nil
}

// handlerTLSVolume projects a certificate Secret's pair and CA bundle,
// never the CA's key.
func handlerTLSVolume(secret string) corev1.Volume {
	return workloads.SecretVolume(secret, secret, webhookcert.CertFile, webhookcert.KeyFile, webhookcert.BundleFile)
}

const uploadKeyVolumeName = "upload-key"

// uploadKeyVolume is the public half of CDI's upload token key: the node's
// upload servers take only uploads carrying a token it verifies. Optional,
// so the agents run before CDI exists; an upload waits for the key.
func uploadKeyVolume() corev1.Volume {
	v := workloads.SecretVolume(uploadKeyVolumeName, uploadtoken.SigningKeySecret, uploadtoken.PublicKeyFile)
	v.Secret.Optional = ptr.To(true)
	return v
}

// uploadServerVolume is the certificate the node's upload servers serve
// cdi-uploadproxy with, which cdi-operator keeps; optional, as the key.
func uploadServerVolume() corev1.Volume {
	v := workloads.SecretVolume(uploadtoken.ServerCertsSecret, uploadtoken.ServerCertsSecret,
		webhookcert.CertFile, webhookcert.KeyFile, webhookcert.BundleFile)
	v.Secret.Optional = ptr.To(true)
	return v
}
