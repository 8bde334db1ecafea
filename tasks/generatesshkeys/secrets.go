package generatesshkeys

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Names of secrets the task names itself (the server completes them).
const (
	privateKeyGenerateName = "private-key-"
	publicKeyGenerateName  = "public-key-"
)

// checkPrivateKeySecretAbsent fails when the named private key secret
// exists: the task never overwrites a private key.
func checkPrivateKeySecretAbsent(ctx context.Context, env stepenv.Env, o *options) error {
	if o.privateName == "" {
		return nil
	}
	err := env.Client.Get(ctx, crclient.ObjectKey{Namespace: o.privateNamespace, Name: o.privateName}, &corev1.Secret{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("error occurred while checking that %v secret should not exist: %v", o.privateName, err)
	}
	return fmt.Errorf("%v secret already exists", o.privateName)
}

// getPublicKeySecret is the named public key secret, nil when there is
// none (or no name).
func getPublicKeySecret(ctx context.Context, env stepenv.Env, o *options) (*corev1.Secret, error) {
	if o.publicName == "" {
		return nil, nil
	}
	secret := &corev1.Secret{}
	err := env.Client.Get(ctx, crclient.ObjectKey{Namespace: o.publicNamespace, Name: o.publicName}, secret)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return secret, nil
}

// publicKeyID is a new key for a public key in a secret.
func publicKeyID() string { return fmt.Sprintf("id-rsa-%v.pub", rand.String(5)) }

// appendPublicKey adds the public key to secret under a key of its own.
// A merge patch adds the one entry without overwriting what others add
// meanwhile.
func appendPublicKey(ctx context.Context, env stepenv.Env, secret *corev1.Secret, publicKey string) error {
	id := publicKeyID()
	for secret.Data[id] != nil {
		id = publicKeyID()
	}
	base := secret.DeepCopy()
	if secret.Data == nil {
		secret.Data = map[string][]byte{}
	}
	secret.Data[id] = []byte(publicKey)
	if err := env.Client.Patch(ctx, secret, crclient.MergeFrom(base)); err != nil {
		return fmt.Errorf("appending the public key to secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	return nil
}

// createPublicKeySecret creates the public key secret, named or with a
// generated name.
func createPublicKeySecret(ctx context.Context, env stepenv.Env, o *options, publicKey string) (*corev1.Secret, error) {
	secret := &corev1.Secret{
		ObjectMeta: secretMeta(o.publicNamespace, o.publicName, publicKeyGenerateName),
		Data:       map[string][]byte{publicKeyID(): []byte(publicKey)},
	}
	if err := env.Client.Create(ctx, secret); err != nil {
		return nil, err
	}
	return secret, nil
}

// createPrivateKeySecret creates the private key secret in execute-in-vm's
// connection secret format: the connection options and the private key.
func createPrivateKeySecret(ctx context.Context, env stepenv.Env, o *options, privateKey string) (*corev1.Secret, error) {
	data := make(map[string][]byte, len(o.connection)+1)
	for key, value := range o.connection {
		data[key] = []byte(value)
	}
	data[privateKeyData] = []byte(privateKey)
	secret := &corev1.Secret{
		ObjectMeta: secretMeta(o.privateNamespace, o.privateName, privateKeyGenerateName),
		Type:       corev1.SecretTypeSSHAuth,
		Data:       data,
	}
	if err := env.Client.Create(ctx, secret); err != nil {
		return nil, err
	}
	return secret, nil
}

func secretMeta(namespace, name, generateName string) metav1.ObjectMeta {
	if name != "" {
		return metav1.ObjectMeta{Namespace: namespace, Name: name}
	}
	return metav1.ObjectMeta{Namespace: namespace, GenerateName: generateName}
}

// deleteSecret removes a secret the task created, best effort: it runs
// when the task already failed.
func deleteSecret(ctx context.Context, env stepenv.Env, secret *corev1.Secret) {
	if err := env.Client.Delete(ctx, secret); err != nil {
		env.Logf("deleting secret %s/%s: %v", secret.Namespace, secret.Name, err)
	}
}
