package platform

import (
	"context"
	"fmt"
	"net"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/controlplane"
)

// ConsoleTLSSecret holds the web console's serving certificate
// (deploy/base/console.yaml mounts it); in the embedded mode `up` issues it
// from a CA of its own and prints that CA.
const ConsoleTLSSecret = "virtflow-console-tls"

// ensureConsoleTLS issues the console's certificate for the names a
// browser (through up's loopback relay) and a pod reach it by, and keeps it
// in ConsoleTLSSecret.
func (p *Platform) ensureConsoleTLS(ctx context.Context, c client.Client) (controlplane.ConsoleCredentials, error) {
	dns := []string{"localhost", ConsoleService, ConsoleService + "." + Namespace + ".svc", ConsoleService + "." + Namespace + ".svc.cluster.local"}
	creds, err := p.cp.ConsoleCredentials(dns, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return creds, err
	}
	data := map[string][]byte{}
	for key, file := range map[string]string{corev1.TLSCertKey: creds.CertFile, corev1.TLSPrivateKeyKey: creds.KeyFile} {
		if data[key], err = os.ReadFile(file); err != nil {
			return creds, fmt.Errorf("reading the console's certificate: %w", err)
		}
	}
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: ConsoleTLSSecret},
		Type:       corev1.SecretTypeTLS, Data: data,
	}
	if err := c.Patch(ctx, s, client.Apply, fieldOwner, client.ForceOwnership); err != nil {
		return creds, fmt.Errorf("writing Secret %s: %w", ConsoleTLSSecret, err)
	}
	return creds, nil
}
