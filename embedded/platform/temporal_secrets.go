package platform

import (
	"context"
	"fmt"
	"maps"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/temporalauth"
	"github.com/virtflow/virtflow/embedded/temporal"
)

// writeTemporalSecrets hands each in-cluster identity its Temporal client
// certificate, key and the CA, as the Secret the pods of that identity
// mount (contracts/temporalauth), before the manifests that mount them
// are applied. A re-issued certificate replaces the Secret's data, and
// the kubelet updates the mounted files, which the clients re-read on
// their next connection.
func writeTemporalSecrets(ctx context.Context, c client.Client, pki temporal.PKI) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", Namespace, err)
	}
	for _, id := range temporalauth.InCluster() {
		data, err := identityFiles(pki, id)
		if err != nil {
			return err
		}
		if err := upsertSecret(ctx, c, temporalauth.SecretName(id), data); err != nil {
			return err
		}
	}
	return nil
}

func identityFiles(pki temporal.PKI, id string) (map[string][]byte, error) {
	data := map[string][]byte{}
	for key, path := range map[string]string{temporalauth.CertKey: pki.Cert(id), temporalauth.KeyKey: pki.Key(id), temporalauth.CAKey: pki.CA()} {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading the Temporal certificate of %s: %w", id, err)
		}
		data[key] = b
	}
	return data, nil
}

func upsertSecret(ctx context.Context, c client.Client, name string, data map[string][]byte) error {
	s := &corev1.Secret{}
	err := c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, s)
	if apierrors.IsNotFound(err) {
		s = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, Labels: map[string]string{"app.kubernetes.io/managed-by": "virtflow-up"}},
			Type:       corev1.SecretTypeTLS, Data: data,
		}
		if err := c.Create(ctx, s); err != nil {
			return fmt.Errorf("creating Secret %s/%s: %w", Namespace, name, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading Secret %s/%s: %w", Namespace, name, err)
	}
	if maps.EqualFunc(s.Data, data, func(a, b []byte) bool { return string(a) == string(b) }) {
		return nil
	}
	s.Data = data
	if err := c.Update(ctx, s); err != nil {
		return fmt.Errorf("updating Secret %s/%s: %w", Namespace, name, err)
	}
	return nil
}
