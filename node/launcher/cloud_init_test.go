package launcher

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// TestNoCloudTakesSecretsAndAccessCredentialKeys: user data from its
// secret, the access credential's keys in meta-data's public-keys and the
// host name, as upstream's NoCloud source.
func TestNoCloudTakesSecretsAndAccessCredentialKeys(t *testing.T) {
	secretsRoot = t.TempDir()
	write := func(dir, name, data string) {
		require.NoError(t, os.MkdirAll(filepath.Join(secretsRoot, dir), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(secretsRoot, dir, name), []byte(data), 0o644))
	}
	write("ci", "userdata", "#cloud-config\nhostname: x\n")
	write("keys-access-cred", "a", "ssh-ed25519 AAAA first\n")
	write("keys-access-cred", "b", "ssh-ed25519 BBBB second")
	vol := kubevirtv1.Volume{Name: "ci", VolumeSource: kubevirtv1.VolumeSource{CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{
		UserDataSecretRef: &corev1.LocalObjectReference{Name: "my-userdata"}}}}
	cfg := Config{VMI: kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: kubevirtv1.VirtualMachineInstanceSpec{
		Volumes: []kubevirtv1.Volume{vol},
		AccessCredentials: []kubevirtv1.AccessCredential{{SSHPublicKey: &kubevirtv1.SSHPublicKeyAccessCredential{
			Source:            kubevirtv1.SSHPublicKeyAccessCredentialSource{Secret: &kubevirtv1.AccessCredentialSecretSource{SecretName: "keys"}},
			PropagationMethod: kubevirtv1.SSHPublicKeyAccessCredentialPropagationMethod{NoCloud: &kubevirtv1.NoCloudSSHPublicKeyAccessCredentialPropagation{}},
		}}},
	}}}
	files, err := noCloudFiles(cfg, vol)
	require.NoError(t, err)
	require.Equal(t, "#cloud-config\nhostname: x\n", files["user-data"])
	var meta noCloudMetadata
	require.NoError(t, json.Unmarshal([]byte(files["meta-data"]), &meta))
	require.Equal(t, "web", meta.LocalHostname)
	require.Equal(t, map[string]string{"0": "ssh-ed25519 AAAA first", "1": "ssh-ed25519 BBBB second"}, meta.PublicSSHKeys)

	vol.CloudInitNoCloud.NetworkDataSecretRef = &corev1.LocalObjectReference{Name: "missing"}
	_, err = noCloudFiles(cfg, vol)
	require.EqualError(t, err, "no cloud-init data-source found at volume: ci-ndata")
}
