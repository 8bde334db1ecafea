package workloads

import (
	"path"

	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/temporalauth"
)

// TemporalTLSVolume is the volume of a component's Temporal certificate.
const TemporalTLSVolume = "temporal-tls"

// TemporalTLS has a component dial Temporal with mTLS, as the identity
// whose certificate, key and CA its Secret holds (contracts/temporalauth).
type TemporalTLS struct {
	// ServerName is the name the frontend's certificate is checked
	// against; the address's host when empty.
	ServerName string
}

// TemporalClient mounts identity's Secret into c, read-only, and passes
// its files to c's command; it returns the pod's volumes, none when t is
// nil (a plaintext Temporal). The command re-reads the certificate on
// every connection, so the Secret's rotation needs no restart.
func TemporalClient(c *corev1.Container, t *TemporalTLS, identity string) []corev1.Volume {
	if t == nil {
		return nil
	}
	dir := temporalauth.CertDir
	c.Command = append(c.Command,
		"--temporal-tls-cert="+path.Join(dir, temporalauth.CertKey), "--temporal-tls-key="+path.Join(dir, temporalauth.KeyKey),
		"--temporal-tls-ca="+path.Join(dir, temporalauth.CAKey))
	if t.ServerName != "" {
		c.Command = append(c.Command, "--temporal-tls-server-name="+t.ServerName)
	}
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: TemporalTLSVolume, MountPath: dir, ReadOnly: true})
	secret := temporalauth.SecretName(identity)
	return []corev1.Volume{SecretVolume(TemporalTLSVolume, secret, temporalauth.CertKey, temporalauth.KeyKey, temporalauth.CAKey)}
}
