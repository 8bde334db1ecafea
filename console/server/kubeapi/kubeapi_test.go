package kubeapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/virtflow/virtflow/console/server/kubeapi/kubeapitest"
	"github.com/virtflow/virtflow/console/server/session"
)

const userToken = "alice-token"

func newAPIServer(t *testing.T) *kubeapitest.APIServer {
	return kubeapitest.New(t, map[string]string{userToken: "alice", kubeapitest.ServerToken: "console"},
		func(user string, a authorizationv1.ResourceAttributes) bool {
			return user == "alice" && a.Verb == "get" && a.Namespace == "mine"
		})
}

// asUser stands in for the console's authentication in front of the proxy.
func asUser(h http.Handler, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" {
			r = r.WithContext(session.WithToken(r.Context(), token))
		}
		h.ServeHTTP(w, r)
	})
}

func TestTheProxySendsTheUsersTokenAndNothingOfTheConsoles(t *testing.T) {
	api := newAPIServer(t)
	var got http.Header
	api.Mux.HandleFunc("GET /api/v1/namespaces/mine/pods", func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"PodList","items":[]}`)
	})
	up, err := New(api.Config())
	require.NoError(t, err)
	console := httptest.NewServer(asUser(up.Proxy(), userToken))
	defer console.Close()

	req, _ := http.NewRequest(http.MethodGet, console.URL+"/api/v1/namespaces/mine/pods", nil)
	req.AddCookie(&http.Cookie{Name: session.CookieName, Value: "sealed"})
	req.Header.Set(session.CSRFHeader, "csrf")
	req.Header.Set("Impersonate-User", "system:admin")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), "PodList")

	assert.Equal(t, "Bearer "+userToken, got.Get("Authorization"))
	assert.Empty(t, got.Get("Cookie"))
	assert.Empty(t, got.Get(session.CSRFHeader))
	assert.Empty(t, got.Get("Impersonate-User"))
	for _, a := range api.Authorizations() {
		assert.NotContains(t, a, kubeapitest.ServerToken)
	}
}

func TestTheProxyRefusesARequestWithoutAUser(t *testing.T) {
	api := newAPIServer(t)
	up, err := New(api.Config())
	require.NoError(t, err)
	console := httptest.NewServer(asUser(up.Proxy(), ""))
	defer console.Close()

	resp, err := http.Get(console.URL + "/api/v1/pods")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Empty(t, api.Authorizations(), "nothing is sent on anonymously, nor as the console")
}

func TestTheApiserversAuthChallengeDoesNotReachTheBrowser(t *testing.T) {
	api := newAPIServer(t)
	up, err := New(api.Config())
	require.NoError(t, err)
	console := httptest.NewServer(asUser(up.Proxy(), "unknown-token"))
	defer console.Close()

	resp, err := http.Get(console.URL + "/api/v1/pods")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("WWW-Authenticate"))
}

func TestAWebsocketIsProxiedEndToEndWithItsSubprotocol(t *testing.T) {
	api := newAPIServer(t)
	upgrader := websocket.Upgrader{Subprotocols: []string{"plain.kubevirt.io"}}
	api.Mux.HandleFunc("GET /apis/subresources.kubevirt.io/v1/namespaces/mine/virtualmachineinstances/vm/console",
		func(w http.ResponseWriter, r *http.Request) {
			assert.Equal(t, "Bearer "+userToken, r.Header.Get("Authorization"))
			ws, err := upgrader.Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer ws.Close()
			for {
				kind, data, err := ws.ReadMessage()
				if err != nil {
					return
				}
				_ = ws.WriteMessage(kind, append([]byte("echo:"), data...))
			}
		})
	up, err := New(api.Config())
	require.NoError(t, err)
	console := httptest.NewServer(asUser(up.Proxy(), userToken))
	defer console.Close()

	url := "ws" + strings.TrimPrefix(console.URL, "http") + "/apis/subresources.kubevirt.io/v1/namespaces/mine/virtualmachineinstances/vm/console"
	dialer := websocket.Dialer{Subprotocols: []string{"plain.kubevirt.io"}}
	ws, resp, err := dialer.Dial(url, nil)
	require.NoError(t, err)
	defer ws.Close()
	assert.Equal(t, "plain.kubevirt.io", resp.Header.Get("Sec-WebSocket-Protocol"))
	require.NoError(t, ws.WriteMessage(websocket.BinaryMessage, []byte("login:")))
	kind, data, err := ws.ReadMessage()
	require.NoError(t, err)
	assert.Equal(t, websocket.BinaryMessage, kind)
	assert.Equal(t, "echo:login:", string(data))
}

func TestWhoAmIAsksAsTheUser(t *testing.T) {
	api := newAPIServer(t)
	up, err := New(api.Config())
	require.NoError(t, err)

	u, err := up.WhoAmI(context.Background(), userToken)
	require.NoError(t, err)
	assert.Equal(t, "alice", u.Username)
	assert.Equal(t, []string{"system:authenticated"}, u.Groups)

	_, err = up.WhoAmI(context.Background(), "unknown-token")
	assert.ErrorIs(t, err, ErrUnauthorized)
}

func TestAllowedMapsEachReviewInOrder(t *testing.T) {
	api := newAPIServer(t)
	up, err := New(api.Config())
	require.NoError(t, err)
	checks := []Check{
		{Verb: "get", Group: "kubevirt.io", Resource: "virtualmachines", Namespace: "mine", Name: "vm"},
		{Verb: "delete", Group: "kubevirt.io", Resource: "virtualmachines", Namespace: "mine", Name: "vm"},
		{Verb: "get", Resource: "pods", Namespace: "theirs"},
	}
	got, err := up.Allowed(context.Background(), userToken, checks)
	require.NoError(t, err)
	assert.Equal(t, []bool{true, false, false}, got)

	before := len(api.Authorizations())
	again, err := up.Allowed(context.Background(), userToken, checks)
	require.NoError(t, err)
	assert.Equal(t, got, again)
	assert.Len(t, api.Authorizations(), before, "recent answers are reused")

	_, err = up.Allowed(context.Background(), "unknown-token", checks)
	assert.ErrorIs(t, err, ErrUnauthorized)
	_, err = up.Allowed(context.Background(), userToken, make([]Check, MaxChecks+1))
	assert.Error(t, err)
}

func TestReachableAnswersWithoutCredentials(t *testing.T) {
	api := newAPIServer(t)
	up, err := New(api.Config())
	require.NoError(t, err)
	require.NoError(t, up.Reachable(context.Background()))
	assert.Equal(t, []string{""}, api.Authorizations())

	api.Close()
	assert.Error(t, up.Reachable(context.Background()))
}
