//go:build integration

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
)

// consoleSession is a browser's cookie jar logged in to the console.
type consoleSession struct {
	t    *testing.T
	base string
	http *http.Client
	csrf string
}

// loginToConsole logs in with token as a browser does.
func loginToConsole(t *testing.T, base, token string) *consoleSession {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	s := &consoleSession{t: t, base: base, http: &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: consoleTransport()}}
	body, _ := json.Marshal(map[string]string{"token": token})
	resp, err := s.http.Post(base+"/auth/login", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var who struct {
		User      struct{ Username string } `json:"user"`
		CSRFToken string                    `json:"csrfToken"`
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&who))
	s.csrf = who.CSRFToken
	return s
}

// do sends a request as the logged-in user, with the CSRF header unless
// told otherwise, and returns the status and body.
func (s *consoleSession) do(method, path, body string, csrf bool) (int, string) {
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	require.NoError(s.t, err)
	req.Header.Set("Content-Type", "application/json")
	if csrf {
		req.Header.Set("X-CSRF-Token", s.csrf)
	}
	resp, err := s.http.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// createToken is `kubectl create token`.
func createToken(t *testing.T, n *upRun, ns, sa string) string {
	t.Helper()
	out, err := n.kubectl("create", "token", "-n", ns, sa).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// TestConsoleServesTheAppAndActsAsTheUser opens the console `up` printed:
// the app is served, the admin's token logs in, requests reach the
// kube-apiserver as that user, a viewer is told it may not start a VM and
// is refused when it tries, and a request without the CSRF header never
// reaches the cluster.
func TestConsoleServesTheAppAndActsAsTheUser(t *testing.T) {
	n := onNode(t)
	require.NotEmpty(t, n.console, "up printed no console URL")
	require.Eventually(t, func() bool {
		resp, err := (&http.Client{Transport: consoleTransport()}).Get(n.console + "/")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		page, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK && strings.Contains(string(page), "app.js")
	}, 3*time.Minute, time.Second, "the console never served its app")

	admin := loginToConsole(t, n.console, createToken(t, n, platform.Namespace, platform.ConsoleAdmin))
	code, me := admin.do(http.MethodGet, "/auth/me", "", false)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, me, "system:serviceaccount:kubevirt-hyperconverged:console-admin")
	code, body := admin.do(http.MethodGet, "/apis/kubevirt.io/v1/virtualmachines", "", false)
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `"kind":"VirtualMachineList"`)

	ns := n.namespace(t)
	viewer := loginToConsole(t, n.console, viewerIn(t, n, ns))
	start := `[{"verb":"update","group":"subresources.kubevirt.io","resource":"virtualmachines","subresource":"start","namespace":"` + ns + `","name":"vm"}]`
	code, body = viewer.do(http.MethodPost, "/console/access", start, true)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `[false]`, body, "the start button is disabled for a viewer")
	code, body = admin.do(http.MethodPost, "/console/access", start, true)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `[true]`, body)
	code, body = viewer.do(http.MethodPut, "/apis/subresources.kubevirt.io/v1/namespaces/"+ns+"/virtualmachines/vm/start", "{}", true)
	require.Equal(t, http.StatusForbidden, code, "a forced start is refused by the cluster: %s", body)
	require.Contains(t, body, "system:serviceaccount:"+ns+":viewer")
	code, _ = admin.do(http.MethodDelete, "/api/v1/namespaces/"+ns+"/serviceaccounts/viewer", "", false)
	require.Equal(t, http.StatusForbidden, code, "without the CSRF header nothing changes")
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKey{Namespace: ns, Name: "viewer"}, &corev1.ServiceAccount{}))
}
