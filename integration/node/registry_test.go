//go:build integration

package node

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/embedded/addons"
	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/embedded/kubenode"
)

// An image pushed to the node's registry is pulled by the kubelet through
// containerd, by the registry's name, as on any cluster.
func TestAnImagePushedToTheNodeRegistryIsPulledForAPod(t *testing.T) {
	ctx := context.Background()
	img := busybox()
	// A layer of its own makes a digest nothing on the node has yet.
	img.Layers = append(img.Layers, []images.Entry{{Path: "/etc/pushed", Data: []byte(t.Name() + "\n"), Mode: 0o644}})
	require.NoError(t, addons.Push(img, env.node.RegistryPushAddress(), "test/pushed:1", env.registry))

	var err error
	pod := runPodFrom(t, "pulled", kubenode.RegistryName+"/test/pushed:1", "cat /etc/pushed; exec sleep 3600")
	require.Equal(t, kubenode.RegistryName+"/test/pushed:1", pod.Status.ContainerStatuses[0].Image)
	var logs []byte
	require.Eventually(t, func() bool {
		logs, err = env.cs.CoreV1().Pods("default").GetLogs("pulled", &corev1.PodLogOptions{}).DoRaw(ctx)
		return err == nil && len(logs) > 0
	}, 30*time.Second, 200*time.Millisecond)
	require.Equal(t, t.Name()+"\n", string(logs))

	events, err := env.cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=pulled,reason=Pulled"})
	require.NoError(t, err)
	require.NotEmpty(t, events.Items)
	require.True(t, strings.HasPrefix(events.Items[0].Message, "Successfully pulled image"), events.Items[0].Message)
}

// Pushes and deletes are the platform's: the pull endpoint refuses them,
// and the push endpoint refuses a client without the push identity (none,
// or one of the cluster CA), so what is in the registry is unchanged.
func TestTheNodeRegistryRefusesPushesAndDeletesFromAnyoneButThePlatform(t *testing.T) {
	img := busybox()
	img.Layers = append(img.Layers, []images.Entry{{Path: "/etc/original", Data: []byte("original\n"), Mode: 0o644}})
	require.NoError(t, addons.Push(img, env.node.RegistryPushAddress(), "test/guarded:1", env.registry))
	pushed, err := img.Build()
	require.NoError(t, err)
	want, err := pushed.Digest()
	require.NoError(t, err)

	forged := busybox()
	forged.Layers = append(forged.Layers, []images.Entry{{Path: "/etc/original", Data: []byte("forged\n"), Mode: 0o644}})
	built, err := forged.Build()
	require.NoError(t, err)
	plain, err := name.ParseReference(env.node.RegistryAddress()+"/test/guarded:1", name.Insecure)
	require.NoError(t, err)
	err = remote.Write(plain, built)
	require.ErrorContains(t, err, "405", "the pull endpoint takes no push")
	require.ErrorContains(t, remote.Delete(plain.Context().Digest(want.String())), "405", "nor a delete")

	secure, err := name.ParseReference(env.node.RegistryPushAddress() + "/test/guarded:1")
	require.NoError(t, err)
	for who, cert := range map[string][]tls.Certificate{"no certificate": nil, "a cluster CA certificate": clusterClientCert(t)} {
		err = remote.Write(secure, built, remote.WithTransport(pushTransport(t, cert)))
		require.Error(t, err, "a push with %s", who)
		require.Error(t, remote.Delete(secure.Context().Digest(want.String()), remote.WithTransport(pushTransport(t, cert))), "a delete with %s", who)
	}

	got, err := remote.Head(plain)
	require.NoError(t, err)
	require.Equal(t, want, got.Digest, "the image is the platform's")
}

// pushTransport trusts the registry CA and presents certs.
func pushTransport(t *testing.T, certs []tls.Certificate) http.RoundTripper {
	t.Helper()
	ca, err := os.ReadFile(env.registry.CAFile)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(ca))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, Certificates: certs}
	return tr
}

// clusterClientCert is a client certificate of the cluster CA (kube-proxy's).
func clusterClientCert(t *testing.T) []tls.Certificate {
	t.Helper()
	dir := filepath.Join(env.dir, "kubernetes", "pki")
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "kube-proxy.crt"), filepath.Join(dir, "kube-proxy.key"))
	require.NoError(t, err)
	return []tls.Certificate{pair}
}
