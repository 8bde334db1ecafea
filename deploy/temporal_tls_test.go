package deploy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// deployments are an overlay's Deployments by name.
func deployments(t *testing.T, out []byte) map[string]appsv1.Deployment {
	t.Helper()
	ds := map[string]appsv1.Deployment{}
	for _, doc := range strings.Split(string(out), "\n---\n") {
		if !strings.Contains(doc, "kind: Deployment\n") {
			continue
		}
		var d appsv1.Deployment
		require.NoError(t, yaml.Unmarshal([]byte(doc), &d))
		ds[d.Name] = d
	}
	return ds
}

// TestEveryPodThatDialsTemporalMountsItsOwnIdentity checks that each
// Deployment dialing Temporal does so with mTLS, as its own identity, and
// that the operators without use for Temporal are not told where it is.
func TestEveryPodThatDialsTemporalMountsItsOwnIdentity(t *testing.T) {
	for _, overlay := range []string{EmbeddedOverlay, ClusterOverlay} {
		out, err := Overlay(overlay, nil)
		require.NoError(t, err)
		ds := deployments(t, out)
		for name, secret := range map[string]string{
			"virtflow-worker": "virtflow-temporal-control-worker", "hco-operator": "virtflow-temporal-hco-operator",
			"ssp-operator": "virtflow-temporal-ssp-operator", "virtflow-console": "virtflow-temporal-console",
		} {
			pod := ds[name].Spec.Template.Spec
			require.NotEmpty(t, pod.Containers, name)
			cmd := strings.Join(pod.Containers[0].Command, " ")
			require.Contains(t, cmd, "--temporal-tls-cert=/etc/virtflow/temporal/tls.crt --temporal-tls-key=/etc/virtflow/temporal/tls.key --temporal-tls-ca=/etc/virtflow/temporal/ca.crt", name)
			var mounted string
			for _, v := range pod.Volumes {
				if v.Name == "temporal-tls" {
					mounted = v.Secret.SecretName
				}
			}
			require.Equal(t, secret, mounted, "%s in %s", name, overlay)
		}
		for _, name := range []string{"virt-operator", "cdi-operator"} {
			require.Contains(t, ds[name].Spec.Template.Spec.Containers[0].Command, "--temporal-tls", "%s's components dial with mTLS", name)
		}
		for _, name := range []string{"hostpath-provisioner-operator", "cluster-network-addons-operator"} {
			require.NotContains(t, strings.Join(ds[name].Spec.Template.Spec.Containers[0].Command, " "), "--temporal", name)
		}
		require.Contains(t, string(out), `server-name: ""`)
	}
}
