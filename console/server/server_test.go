package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/virtflow/virtflow/console/server/kubeapi/kubeapitest"
	"github.com/virtflow/virtflow/console/server/session"
)

const aliceToken = "alice-token"

// fixture is a console in front of an apiserver stand-in, and a browser
// (a client with a cookie jar) logged in to nothing yet.
type fixture struct {
	api     *kubeapitest.APIServer
	server  *Server
	console *httptest.Server
	browser *http.Client
}

func newFixture(t *testing.T, cfg Config) *fixture {
	api := kubeapitest.New(t, map[string]string{aliceToken: "alice"}, func(user string, a authorizationv1.ResourceAttributes) bool {
		return user == "alice" && a.Namespace == "mine" && a.Verb != "delete"
	})
	api.Mux.HandleFunc("/api/v1/namespaces/mine/pods", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","items":[]}`)
	})
	cfg.Kube = api.Config()
	cfg.Log = slog.New(slog.DiscardHandler)
	s, err := New(cfg)
	require.NoError(t, err)
	console := httptest.NewServer(s.Handler())
	t.Cleanup(console.Close)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &fixture{api: api, server: s, console: console, browser: &http.Client{Jar: jar}}
}

// do sends a request as the browser would from the console's own page.
func (f *fixture) do(t *testing.T, method, path, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, f.console.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Origin", f.console.URL)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.browser.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (f *fixture) login(t *testing.T) Me {
	t.Helper()
	resp := f.do(t, http.MethodPost, "/auth/login", `{"token":"`+aliceToken+`"}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var me Me
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&me))
	return me
}

func (f *fixture) cookie(name string) string {
	u, _ := url.Parse(f.console.URL)
	for _, c := range f.browser.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func body(t *testing.T, resp *http.Response) string {
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func TestLoginKeepsTheTokenSealedAndTheProxyActsAsTheUser(t *testing.T) {
	f := newFixture(t, Config{})
	me := f.login(t)
	assert.Equal(t, "alice", me.User.Username)
	assert.NotEmpty(t, me.CSRFToken)
	assert.Equal(t, me.CSRFToken, f.cookie(session.CSRFCookieName))
	assert.NotEmpty(t, f.cookie(session.CookieName))
	assert.NotContains(t, f.cookie(session.CookieName), aliceToken)

	resp := f.do(t, http.MethodGet, "/api/v1/namespaces/mine/pods", "", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body(t, resp), "PodList")
	auths := f.api.Authorizations()
	assert.Equal(t, "Bearer "+aliceToken, auths[len(auths)-1])
	for _, a := range auths {
		assert.NotContains(t, a, kubeapitest.ServerToken, "the console's own identity never reaches the apiserver")
	}
}

func TestALoginTheApiserverRefusesSetsNoCookie(t *testing.T) {
	f := newFixture(t, Config{})
	resp := f.do(t, http.MethodPost, "/auth/login", `{"token":"stolen"}`, nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, body(t, resp), "did not accept the token")
	assert.Empty(t, f.cookie(session.CookieName))

	resp = f.do(t, http.MethodPost, "/auth/login", `{}`, nil)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func TestLoginTakesAFormAndRefusesAnotherSitesPage(t *testing.T) {
	f := newFixture(t, Config{})
	form := url.Values{"token": {"Bearer " + aliceToken}}.Encode()
	resp := f.do(t, http.MethodPost, "/auth/login", form, map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	assert.Equal(t, http.StatusOK, resp.StatusCode, body(t, resp))

	resp = f.do(t, http.MethodPost, "/auth/login", `{"token":"`+aliceToken+`"}`, map[string]string{"Origin": "http://evil.example"})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}

func TestAStateChangingRequestNeedsTheCSRFHeader(t *testing.T) {
	f := newFixture(t, Config{})
	var created string
	f.api.Mux.HandleFunc("POST /apis/kubevirt.io/v1/namespaces/mine/virtualmachines", func(w http.ResponseWriter, r *http.Request) {
		created = r.Header.Get("Authorization")
		w.WriteHeader(http.StatusCreated)
	})
	me := f.login(t)
	reached := len(f.api.Authorizations())

	resp := f.do(t, http.MethodPost, "/apis/kubevirt.io/v1/namespaces/mine/virtualmachines", `{}`, nil)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, body(t, resp), session.CSRFHeader)
	resp = f.do(t, http.MethodPost, "/apis/kubevirt.io/v1/namespaces/mine/virtualmachines", `{}`, map[string]string{session.CSRFHeader: "guess"})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Len(t, f.api.Authorizations(), reached, "a refused request never reaches the apiserver")

	resp = f.do(t, http.MethodPost, "/apis/kubevirt.io/v1/namespaces/mine/virtualmachines", `{}`, map[string]string{session.CSRFHeader: me.CSRFToken})
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, "Bearer "+aliceToken, created)
}

func TestABearerHeaderWorksWithoutASession(t *testing.T) {
	f := newFixture(t, Config{})
	resp := f.do(t, http.MethodGet, "/api/v1/namespaces/mine/pods", "", map[string]string{"Authorization": "Bearer " + aliceToken})
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	resp = f.do(t, http.MethodGet, "/api/v1/namespaces/mine/pods", "", nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	var st struct{ Kind, Reason string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	assert.Equal(t, "Status", st.Kind)
	assert.Equal(t, "Unauthorized", st.Reason)
}

func TestACookieFromAnotherProcessIsNotASession(t *testing.T) {
	f := newFixture(t, Config{})
	other := newFixture(t, Config{})
	other.login(t)
	u, _ := url.Parse(f.console.URL)
	o, _ := url.Parse(other.console.URL)
	f.browser.Jar.SetCookies(u, other.browser.Jar.Cookies(o))

	resp := f.do(t, http.MethodGet, "/api/v1/namespaces/mine/pods", "", nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, body(t, resp), "log in again")
}

func TestMeAndLogout(t *testing.T) {
	f := newFixture(t, Config{})
	me := f.login(t)
	resp := f.do(t, http.MethodGet, "/auth/me", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var got Me
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
	assert.Equal(t, "alice", got.User.Username)
	assert.Equal(t, []string{"system:authenticated"}, got.User.Groups)
	assert.Equal(t, me.CSRFToken, got.CSRFToken)

	resp = f.do(t, http.MethodPost, "/auth/logout", "", nil)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "logging out is state-changing too")
	resp = f.do(t, http.MethodPost, "/auth/logout", "", map[string]string{session.CSRFHeader: me.CSRFToken})
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Empty(t, f.cookie(session.CookieName))
	resp = f.do(t, http.MethodGet, "/auth/me", "", nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

func TestAccessAnswersEachCheckInOrder(t *testing.T) {
	f := newFixture(t, Config{})
	me := f.login(t)
	checks := `[{"verb":"get","group":"kubevirt.io","resource":"virtualmachines","namespace":"mine","name":"vm"},
		{"verb":"delete","group":"kubevirt.io","resource":"virtualmachines","namespace":"mine","name":"vm"},
		{"verb":"update","group":"subresources.kubevirt.io","resource":"virtualmachines","subresource":"start","namespace":"theirs","name":"vm"}]`
	resp := f.do(t, http.MethodPost, "/console/access", checks, map[string]string{session.CSRFHeader: me.CSRFToken})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var allowed []bool
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&allowed))
	assert.Equal(t, []bool{true, false, false}, allowed)

	resp = f.do(t, http.MethodPost, "/console/access", `{"not":"a list"}`, map[string]string{session.CSRFHeader: me.CSRFToken})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func TestOperationsWithoutTemporalSayWhy(t *testing.T) {
	f := newFixture(t, Config{})
	f.login(t)
	resp := f.do(t, http.MethodGet, "/console/operations", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Contains(t, body(t, resp), "without a Temporal address")

	resp = f.do(t, http.MethodGet, "/console/info", "", nil)
	var info Info
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&info))
	assert.False(t, info.Operations)
	assert.NotEmpty(t, info.Version)
}

func TestTheBundleIsServedSPAStyle(t *testing.T) {
	assets := fstest.MapFS{
		"index.html":     {Data: []byte("<html>console</html>")},
		"assets/app.js":  {Data: []byte("console.log(1)")},
		"assets/app.css": {Data: []byte("body{}")},
	}
	f := newFixture(t, Config{Assets: assets})
	for path, want := range map[string]string{"/": "<html>console</html>", "/vms/mine/vm": "<html>console</html>", "/assets/app.js": "console.log(1)"} {
		resp := f.do(t, http.MethodGet, path, "", nil)
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Equal(t, want, body(t, resp), path)
		assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
	}
	resp := f.do(t, http.MethodGet, "/assets/app.js", "", nil)
	assert.Contains(t, resp.Header.Get("Content-Type"), "javascript")
	resp = f.do(t, http.MethodGet, "/console/nothing", "", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "API paths do not fall back to the page")
}

func TestTheBundleIsSentCompressedToBrowsersThatAcceptGzip(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write([]byte("console.log('compressed')"))
	require.NoError(t, w.Close())
	assets := fstest.MapFS{
		"index.html":       {Data: []byte("<html>console</html>")},
		"assets/app.js":    {Data: []byte("console.log('compressed')")},
		"assets/app.js.gz": {Data: gz.Bytes()},
		"assets/font.woff": {Data: []byte("woff")},
	}
	f := newFixture(t, Config{Assets: assets})

	resp := f.do(t, http.MethodGet, "/assets/app.js", "", map[string]string{"Accept-Encoding": "br, gzip"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	assert.Contains(t, resp.Header.Get("Content-Type"), "javascript", "the type is the file's, not gzip's")
	assert.Contains(t, resp.Header.Values("Vary"), "Accept-Encoding")
	r, err := gzip.NewReader(resp.Body)
	require.NoError(t, err)
	plain, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "console.log('compressed')", string(plain))

	resp = f.do(t, http.MethodGet, "/assets/app.js", "", map[string]string{"Accept-Encoding": "identity, gzip; q=0.5"})
	assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"), "a weight above zero accepts gzip")

	for _, accept := range []string{"", "identity", "gzip;q=0", "gzip; q=0.000", "br"} {
		resp = f.do(t, http.MethodGet, "/assets/app.js", "", map[string]string{"Accept-Encoding": accept})
		assert.Empty(t, resp.Header.Get("Content-Encoding"), accept)
		assert.Equal(t, "console.log('compressed')", body(t, resp), accept)
	}
	resp = f.do(t, http.MethodGet, "/assets/font.woff", "", map[string]string{"Accept-Encoding": "gzip"})
	assert.Empty(t, resp.Header.Get("Content-Encoding"), "a file without a .gz goes as it is")
	assert.Equal(t, "woff", body(t, resp))
}

func TestWithoutABundleThePageSaysHowToBuildIt(t *testing.T) {
	for _, assets := range []fstest.MapFS{nil, {"other.txt": {Data: []byte("x")}}} {
		cfg := Config{}
		if assets != nil {
			cfg.Assets = assets
		}
		f := newFixture(t, cfg)
		resp := f.do(t, http.MethodGet, "/vms", "", nil)
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Equal(t, NotBuilt, body(t, resp))
		resp = f.do(t, http.MethodGet, "/readyz", "", nil)
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "a console without its page is not ready")
		assert.Equal(t, NotBuilt, body(t, resp))
	}
}
