package kubevirt

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/kube/workloads"
)

var install = Install{
	Image: "virtflow.local/virtflow:abc", TemporalAddress: "10.244.0.1:7233",
	KubeletRoot: "/data/node/kubelet", NodeDir: "/data/nodes", HostRoot: "/data/host",
}

func owner() client.Object {
	return &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt-hyperconverged", Name: "kv"}}
}

func TestVirtHandlerIsAPrivilegedDaemonSetSeeingTheNodePathsWhereTheyAre(t *testing.T) {
	objs, err := install.Render(context.Background(), nil, owner(), "virt-handler")
	require.NoError(t, err)
	ds := objs[0].(*appsv1.DaemonSet)
	require.Equal(t, "kubevirt-hyperconverged", ds.Namespace)
	require.Equal(t, "virt-handler", ds.Name)
	pod := ds.Spec.Template.Spec
	require.Equal(t, "kubevirt-handler", pod.ServiceAccountName)
	c := pod.Containers[0]
	require.True(t, *c.SecurityContext.Privileged)
	require.Equal(t, []string{"/usr/bin/virtflow", "virt-handler", "--kubelet-root=/data/node/kubelet",
		"--node-dir=/data/nodes", "--temporal-address=10.244.0.1:7233", "--node-api-tls-dir=" + HandlerServerCertDir,
		"--host-root=/data/host", "--upload-key-dir=/var/run/cdi/token/keys", "--upload-tls-dir=/var/run/cdi/uploadserver/server",
		"--migration-client-tls-dir=" + HandlerClientCertDir}, c.Command)
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	for _, v := range pod.Volumes {
		if v.HostPath != nil {
			require.Equal(t, v.HostPath.Path, mounts[v.Name], "volume %s is not mounted where it is on the node", v.Name)
		}
	}
	require.Contains(t, mounts, "kubelet-root")
	require.Equal(t, "/tmp", mounts[HandlerScratchVolume], "scratch files survive a restart of the container")
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			env[e.Name] = e.ValueFrom.FieldRef.FieldPath
		}
	}
	require.Equal(t, map[string]string{workloads.NodeNameEnv: "spec.nodeName", workloads.PodIPEnv: "status.podIP", workloads.NamespaceEnv: "metadata.namespace"}, env)
	require.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	require.Equal(t, ds.Spec.Selector.MatchLabels[componentLabel], ds.Spec.Template.Labels[componentLabel])
}

func TestVirtControllerRunsUnprivilegedWithItsOwnIdentity(t *testing.T) {
	objs, err := install.Render(context.Background(), nil, owner(), "virt-controller")
	require.NoError(t, err)
	d := objs[0].(*appsv1.Deployment)
	sc := d.Spec.Template.Spec.Containers[0].SecurityContext
	require.True(t, *sc.RunAsNonRoot)
	require.False(t, *sc.AllowPrivilegeEscalation)
	require.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
	sa := objs[1].(*corev1.ServiceAccount)
	require.Equal(t, d.Spec.Template.Spec.ServiceAccountName, sa.Name)
	for _, o := range objs {
		require.NotEmpty(t, o.GetObjectKind().GroupVersionKind().Kind, "%s has no kind to apply", o.GetName())
	}
}

func TestVirtAPIIsTrustedThroughTheCAOfItsOwnCertificate(t *testing.T) {
	objs, err := install.Render(context.Background(), nil, owner(), "virt-api")
	require.NoError(t, err)
	d := objs[0].(*appsv1.Deployment)
	require.Equal(t, "virt-api", d.Name)
	secret := objs[1].(*corev1.Secret)
	vol := d.Spec.Template.Spec.Volumes[0].Secret
	require.Equal(t, secret.Name, vol.SecretName)
	require.Len(t, vol.Items, 2, "only the serving certificate and key reach the pod")
	svc := objs[2].(*corev1.Service)
	require.Equal(t, int32(workloads.ServingPort), svc.Spec.Ports[0].TargetPort.IntVal)
	require.Equal(t, corev1.ServiceTypeClusterIP, svc.Spec.Type)
	bundle, err := base64.StdEncoding.DecodeString(objs[3].(*unstructured.Unstructured).Object["spec"].(map[string]any)["caBundle"].(string))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(bundle))
	b, _ := pem.Decode(secret.Data["tls.crt"])
	leaf, err := x509.ParseCertificate(b.Bytes)
	require.NoError(t, err)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "virt-api.kubevirt-hyperconverged.svc"})
	require.NoError(t, err, "the aggregator cannot verify virt-api")
	hooks := objs[4].(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks
	require.NotEmpty(t, hooks)
	for _, h := range hooks {
		require.Equal(t, "virt-api", h.ClientConfig.Service.Name)
		require.Equal(t, bundle, h.ClientConfig.CABundle)
	}

	reader := fake.NewClientBuilder().WithObjects(secret).Build()
	again, err := install.Render(context.Background(), reader, owner(), "virt-api")
	require.NoError(t, err)
	require.Equal(t, secret.Data["tls.crt"], again[1].(*corev1.Secret).Data["tls.crt"], "a valid certificate was replaced")
}

func TestAnUnknownComponentHasNoWorkload(t *testing.T) {
	_, err := install.Render(context.Background(), nil, owner(), "virt-exportproxy")
	require.EqualError(t, err, "virt-operator has no workload for virt-exportproxy")
}

// The node agents serve their API with a certificate of a CA of their own
// and take only virt-api's client certificate of that CA; neither pod gets
// the CA's key.
func TestTheNodeAgentAPIIsMutuallyAuthenticated(t *testing.T) {
	objs, err := install.Render(context.Background(), nil, owner(), "virt-handler")
	require.NoError(t, err)
	secrets := map[string]*corev1.Secret{}
	for _, o := range objs {
		if s, ok := o.(*corev1.Secret); ok {
			secrets[s.Name] = s
		}
	}
	server, client := secrets[HandlerServerCerts], secrets[HandlerClientCerts]
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
	verify(server.Data[webhookcert.CertFile], x509.ExtKeyUsageServerAuth, HandlerServerName)
	verify(client.Data[webhookcert.CertFile], x509.ExtKeyUsageClientAuth, "")

	ds := objs[0].(*appsv1.DaemonSet)
	api, err := install.Render(context.Background(), nil, owner(), "virt-api")
	require.NoError(t, err)
	for secret, spec := range map[string]corev1.PodSpec{HandlerServerCerts: ds.Spec.Template.Spec, HandlerClientCerts: api[0].(*appsv1.Deployment).Spec.Template.Spec} {
		var found bool
		for _, v := range spec.Volumes {
			if v.Secret != nil && v.Secret.SecretName == secret {
				found = true
				for _, item := range v.Secret.Items {
					require.NotEqual(t, "ca.key", item.Key, "the CA's key stays out of the pod")
				}
			}
		}
		require.True(t, found, "%s is mounted", secret)
	}
}
