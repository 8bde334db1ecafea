// Package kubeapitest is a kube-apiserver stand-in for the console's tests:
// TLS with its own CA, bearer tokens it knows, SelfSubjectReview and
// SelfSubjectAccessReview answered from a rule, and every Authorization
// header it receives recorded, so tests can prove whose identity arrived.
package kubeapitest

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// ServerToken is the console's own token in the configuration the tests
// hand it; it must never reach the apiserver.
const ServerToken = "console-service-account-token"

// Rule decides an access review for a user.
type Rule func(user string, attrs authorizationv1.ResourceAttributes) bool

// APIServer is the stand-in.
type APIServer struct {
	*httptest.Server
	// Mux serves whatever else a test needs, after authentication.
	Mux   *http.ServeMux
	users map[string]string
	allow Rule

	mu   sync.Mutex
	auth []string
}

// New starts a stand-in that knows the tokens (token → user name) and
// decides access reviews by allow.
func New(t *testing.T, users map[string]string, allow Rule) *APIServer {
	a := &APIServer{Mux: http.NewServeMux(), users: users, allow: allow}
	a.Mux.HandleFunc("POST /apis/authentication.k8s.io/v1/selfsubjectreviews", a.selfSubjectReview)
	a.Mux.HandleFunc("POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews", a.selfSubjectAccessReview)
	a.Server = httptest.NewTLSServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

// Config is what a console would load: the address, the CA, and the
// console's own token, which the console must not use.
func (a *APIServer) Config() *rest.Config {
	return &rest.Config{Host: a.URL, BearerToken: ServerToken, TLSClientConfig: rest.TLSClientConfig{CAData: a.caPEM()}}
}

// Authorizations are the Authorization headers received so far.
func (a *APIServer) Authorizations() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.auth...)
}

// User returns the user a request's bearer token names, "" if none.
func (a *APIServer) User(r *http.Request) string {
	return a.users[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
}

func (a *APIServer) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.auth = append(a.auth, r.Header.Get("Authorization"))
	a.mu.Unlock()
	if r.URL.Path == "/readyz" {
		w.WriteHeader(http.StatusOK)
		return
	}
	if a.User(r) == "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="kubernetes-master"`)
		writeJSON(w, http.StatusUnauthorized, &metav1.Status{Status: metav1.StatusFailure, Code: 401, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"})
		return
	}
	a.Mux.ServeHTTP(w, r)
}

func (a *APIServer) selfSubjectReview(w http.ResponseWriter, r *http.Request) {
	user := a.User(r)
	writeJSON(w, http.StatusCreated, &authenticationv1.SelfSubjectReview{
		TypeMeta: metav1.TypeMeta{Kind: "SelfSubjectReview", APIVersion: "authentication.k8s.io/v1"},
		Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: authenticationv1.UserInfo{
			Username: user, UID: "uid-" + user, Groups: []string{"system:authenticated"},
		}},
	})
}

func (a *APIServer) selfSubjectAccessReview(w http.ResponseWriter, r *http.Request) {
	var ssar authorizationv1.SelfSubjectAccessReview
	if err := json.NewDecoder(r.Body).Decode(&ssar); err != nil || ssar.Spec.ResourceAttributes == nil {
		writeJSON(w, http.StatusBadRequest, &metav1.Status{Status: metav1.StatusFailure, Code: 400, Message: "bad review"})
		return
	}
	ssar.Status.Allowed = a.allow != nil && a.allow(a.User(r), *ssar.Spec.ResourceAttributes)
	ssar.TypeMeta = metav1.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}
	writeJSON(w, http.StatusCreated, &ssar)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// caPEM is the stand-in's certificate, which is its own CA.
func (a *APIServer) caPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.Certificate().Raw})
}
