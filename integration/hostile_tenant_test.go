//go:build integration

package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/kubenode"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/node/handler"
)

// tenant is a namespace editor: a ServiceAccount of its own namespace
// bound to the edit ClusterRole there, with a client holding its token and
// nothing else (no client certificate).
type tenant struct {
	ns  string
	c   crclient.Client
	cfg *rest.Config
}

func newTenant(t *testing.T, n *upRun) tenant {
	t.Helper()
	ctx := context.Background()
	// A namespace of its own beside the one n.namespace gives the test
	// (the other tenant's, where one plays it).
	name := strings.Trim(nonName.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	ns := n.namespaceNamed(t, strings.Trim(name[:min(40, len(name))], "-")+"-tenant")
	require.NoError(t, n.c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "editor"}}))
	require.NoError(t, n.c.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "editor"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "editor"}}}))
	cfg := rest.AnonymousClientConfig(n.cfg)
	cfg.BearerToken = createToken(t, n, ns, "editor")
	c, err := newClient(cfg)
	require.NoError(t, err)
	return tenant{ns: ns, c: c, cfg: cfg}
}

// TestAHostileTenantIsRefusedEverywhere plays a namespace editor who wants
// more than their namespace: every attempt is refused and changes nothing.
func TestAHostileTenantIsRefusedEverywhere(t *testing.T) {
	n := onNode(t)
	tn := newTenant(t, n)
	t.Run("runs a privileged pod or mounts the host", func(t *testing.T) { privilegedPodsAreRefused(t, tn) })
	t.Run("reads the platform's secrets", func(t *testing.T) {
		err := tn.c.Get(context.Background(), crclient.ObjectKey{Namespace: platform.Namespace, Name: handler.TokenSecret(platform.NodeName)}, &corev1.Secret{})
		require.True(t, apierrors.IsForbidden(err), "%v", err)
	})
	t.Run("dials Temporal to start, poll or cancel anything", func(t *testing.T) { temporalRefusesStrangers(t, n) })
	t.Run("pushes to or deletes from the registry", registryRefusesTenants)
	t.Run("presents a foreign client certificate to virt-api", func(t *testing.T) { virtAPIRefusesForeignCertificates(t, n) })
	t.Run("calls a node agent", func(t *testing.T) { nodeAgentRefusesStrangers(t, n) })
	t.Run("runs a durable task as another ServiceAccount", func(t *testing.T) { forgedDurableTask(t, n) })
}

// privilegedPodsAreRefused: Pod Security's baseline level holds in a
// user's namespace.
func privilegedPodsAreRefused(t *testing.T, tn tenant) {
	pod := func(name string, mutate func(*corev1.PodSpec)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: tn.ns, Name: name}, Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: platform.ComponentsRepository + ":any", Command: []string{"sleep", "3600"}}},
		}}
		mutate(&p.Spec)
		return p
	}
	attempts := map[string]*corev1.Pod{
		"privileged": pod("privileged", func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		}),
		"host path": pod("hostpath", func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
		}),
		"host network": pod("hostnet", func(s *corev1.PodSpec) { s.HostNetwork = true }),
	}
	for what, p := range attempts {
		err := tn.c.Create(context.Background(), p)
		require.True(t, apierrors.IsForbidden(err), "a %s pod: %v", what, err)
		require.ErrorContains(t, err, `violates PodSecurity "baseline:latest"`, what)
	}
}

// registryRefusesTenants: the pull endpoint takes no writes, the push
// endpoint no client without the platform's push identity.
func registryRefusesTenants(t *testing.T) {
	node := platform.NodeBridge.Address.Addr().String()
	plain, err := name.ParseReference(net.JoinHostPort(node, strconv.Itoa(kubenode.RegistryPort))+"/virtflow/test-guest:latest", name.Insecure)
	require.NoError(t, err)
	before, err := remote.Head(plain)
	require.NoError(t, err, "the test guest is pulled from the registry")

	require.ErrorContains(t, remote.Write(plain, empty.Image), "405")
	require.ErrorContains(t, remote.Delete(plain.Context().Digest(before.Digest.String())), "405")
	secure, err := name.ParseReference(net.JoinHostPort(node, strconv.Itoa(kubenode.RegistryPushPort)) + "/virtflow/test-guest:latest")
	require.NoError(t, err)
	anyServer := http.DefaultTransport.(*http.Transport).Clone()
	anyServer.TLSClientConfig = &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{selfSigned(t, "virtflow-registry-pusher")}} //nolint:gosec
	require.Error(t, remote.Write(secure, empty.Image, remote.WithTransport(anyServer)))
	require.Error(t, remote.Delete(secure.Context().Digest(before.Digest.String()), remote.WithTransport(anyServer)))

	after, err := remote.Head(plain)
	require.NoError(t, err)
	require.Equal(t, before.Digest, after.Digest, "the test guest is unchanged")
}

// virtAPIRefusesForeignCertificates: a client certificate the front
// proxy's CA did not issue, named as the front proxy, claiming to be a
// cluster admin, gets nothing from virt-api.
func virtAPIRefusesForeignCertificates(t *testing.T, n *upRun) {
	svc := &corev1.Service{}
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKey{Namespace: platform.Namespace, Name: "virt-api"}, svc))
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true, Certificates: []tls.Certificate{selfSigned(t, "front-proxy-client")}, //nolint:gosec
	}}}
	url := fmt.Sprintf("https://%s/apis/subresources.kubevirt.io/v1/namespaces/%s/virtualmachines/any/start", net.JoinHostPort(svc.Spec.ClusterIP, "443"), platform.Namespace)
	req, err := http.NewRequest(http.MethodPut, url, nil)
	require.NoError(t, err)
	req.Header.Set("X-Remote-User", "system:admin")
	req.Header.Set("X-Remote-Group", "system:masters")
	resp, err := hc.Do(req)
	if err != nil {
		requireTLSRefusal(t, err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s", body)
}

// nodeAgentRefusesStrangers: the node agent's API takes only virt-api's
// client certificate, not a plain connection nor a certificate of another
// CA, even with the agent's own token.
func nodeAgentRefusesStrangers(t *testing.T, n *upRun) {
	secret := &corev1.Secret{}
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKey{Namespace: platform.Namespace, Name: handler.TokenSecret(platform.NodeName)}, secret))
	addr, token := string(secret.Data["address"]), string(secret.Data["token"])
	require.NotEmpty(t, addr)
	path := "/v1/namespaces/" + platform.Namespace + "/virtualmachineinstances/any/guestinfo"
	for scheme, certs := range map[string][]tls.Certificate{"http": nil, "https": {selfSigned(t, "kubevirt.io:system:client:virt-handler")}} {
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, Certificates: certs}}} //nolint:gosec
		req, err := http.NewRequest(http.MethodGet, scheme+"://"+addr+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		requireRefusedAtTLS(t, scheme, resp, err)
	}
}

// selfSigned is a client certificate named cn that no platform CA issued.
func selfSigned(t *testing.T, cn string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// requireTLSRefusal: the connection reached the server and was refused in
// the TLS handshake (not unreachable, not timed out).
func requireTLSRefusal(t *testing.T, err error) {
	t.Helper()
	require.Contains(t, err.Error(), "tls", "refused in the handshake, not unreachable")
}

// requireRefusedAtTLS: a plain HTTP request to a TLS-only server is
// answered 400, and a TLS client of another CA is refused in the handshake.
func requireRefusedAtTLS(t *testing.T, scheme string, resp *http.Response, err error) {
	t.Helper()
	if scheme == "https" {
		require.Error(t, err, "a client certificate of another CA is refused")
		requireTLSRefusal(t, err)
		return
	}
	require.NoError(t, err, "the server answers a plain request")
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "only a TLS client gets an answer")
}
