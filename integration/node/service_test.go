//go:build integration

package node

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// One pod reaches another through a Service by its DNS name: kube-proxy's
// nftables rules, the cluster DNS and the pod network together.
func TestAServiceAndItsDNSNameResolveFromOnePodToAnother(t *testing.T) {
	ctx := context.Background()
	runPod(t, "web", "mkdir -p /www && echo served by $(hostname) > /www/index.html && exec httpd -f -p 8080 -h /www", map[string]string{"app": "web"})
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
	created, err := env.cs.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = env.cs.CoreV1().Services("default").Delete(ctx, "web", metav1.DeleteOptions{}) })
	runPod(t, "client", "exec sleep 3600", nil)

	var lookup string
	require.Eventually(t, func() bool {
		lookup, err = kubectlOutput("exec", "client", "--", "nslookup", "web.default.svc.cluster.local")
		return err == nil && strings.Contains(lookup, created.Spec.ClusterIP)
	}, time.Minute, time.Second, "nslookup: %s", lookup)

	// Debian's static busybox cannot resolve names itself (its wget even
	// crashes), so the HTTP request goes to the address the name resolved
	// to.
	var page string
	request := "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 " + created.Spec.ClusterIP + " 80"
	require.Eventually(t, func() bool {
		page, err = kubectlOutput("exec", "client", "--", "sh", "-c", request)
		return err == nil && strings.Contains(page, "200 OK")
	}, time.Minute, time.Second, "nc: %s", page)
	require.True(t, strings.HasSuffix(page, "\r\n\r\nserved by web\n"), page)
}
