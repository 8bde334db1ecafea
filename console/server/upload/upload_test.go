package upload

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	uploadv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/upload/v1beta1"

	"github.com/virtflow/virtflow/console/server/kubeapi"
	"github.com/virtflow/virtflow/console/server/kubeapi/kubeapitest"
	"github.com/virtflow/virtflow/console/server/session"
)

const (
	userToken   = "alice-token"
	uploadToken = "upload-token-for-disk"
)

// cluster is the stand-ins: an apiserver where alice may request upload
// tokens in "mine" (DataVolume "disk" takes an upload, "imported" does
// not) and which publishes the proxy's CA, and the upload proxy itself.
type cluster struct {
	api      *kubeapitest.APIServer
	proxy    *httptest.Server
	requests chan uploadv1.UploadTokenRequest
	// upload serves the proxy's upload path.
	upload http.HandlerFunc
}

func newCluster(t *testing.T) *cluster {
	c := &cluster{requests: make(chan uploadv1.UploadTokenRequest, 1)}
	c.proxy = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != uploadPath {
			http.NotFound(w, r)
			return
		}
		c.upload(w, r)
	}))
	t.Cleanup(c.proxy.Close)
	c.api = kubeapitest.New(t, map[string]string{userToken: "alice", "bob-token": "bob"}, nil)
	c.api.Mux.HandleFunc("GET /apis/cdi.kubevirt.io/v1beta1/namespaces/mine/datavolumes/{name}", func(w http.ResponseWriter, r *http.Request) {
		source := `{"upload": {}}`
		if r.PathValue("name") == "imported" {
			source = `{"http": {"url": "http://images/disk.img"}}`
		}
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataVolume",
			"metadata": {"name": %q, "namespace": "mine"}, "spec": {"source": %s}}`, r.PathValue("name"), source))
	})
	c.api.Mux.HandleFunc("POST /apis/upload.cdi.kubevirt.io/v1beta1/namespaces/mine/uploadtokenrequests", c.tokenRequest)
	c.api.Mux.HandleFunc("GET "+cdiConfig, func(w http.ResponseWriter, _ *http.Request) {
		ca, _ := json.Marshal(string(c.proxyCA()))
		writeJSON(w, http.StatusOK, `{"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "CDIConfig", "metadata": {"name": "config"},
			"status": {"uploadProxyCA": `+string(ca)+`}}`)
	})
	return c
}

func (c *cluster) tokenRequest(w http.ResponseWriter, r *http.Request) {
	if c.api.User(r) != "alice" {
		writeJSON(w, http.StatusForbidden, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 403, "reason": "Forbidden",
			"message": "uploadtokenrequests.upload.cdi.kubevirt.io is forbidden: User \"bob\" cannot create resource"}`)
		return
	}
	var req uploadv1.UploadTokenRequest
	_ = json.NewDecoder(r.Body).Decode(&req)
	c.requests <- req
	req.Status.Token = uploadToken
	data, _ := json.Marshal(req)
	writeJSON(w, http.StatusCreated, string(data))
}

func (c *cluster) proxyCA() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.proxy.Certificate().Raw})
}

// console serves the route as the token's owner, with the proxy's CA as
// configured.
func (c *cluster) console(t *testing.T, token string, ca []byte) *httptest.Server {
	up, err := kubeapi.New(c.api.Config())
	require.NoError(t, err)
	h := &Handler{Kube: up, Proxy: Proxy{URL: c.proxy.URL, CA: ca}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /console/upload/{namespace}/{datavolume}", func(w http.ResponseWriter, r *http.Request) {
		h.ServeUpload(w, r.WithContext(session.WithToken(r.Context(), token)))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	io.WriteString(w, body)
}

func post(t *testing.T, url string, body io.Reader, length int64) (int, metav1.Status) {
	req, err := http.NewRequest(http.MethodPost, url, body)
	require.NoError(t, err)
	req.ContentLength = length
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var st metav1.Status
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	return resp.StatusCode, st
}

func TestTheImageStreamsToTheProxyWithATokenRequestedAsTheUser(t *testing.T) {
	c := newCluster(t)
	first, rest := bytes.Repeat([]byte("a"), 64<<10), bytes.Repeat([]byte("b"), 64<<10)
	firstArrived := make(chan struct{})
	var got []byte
	c.upload = func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "Bearer "+uploadToken, r.Header.Get("Authorization"))
		assert.Equal(t, int64(len(first)+len(rest)), r.ContentLength)
		head := make([]byte, len(first))
		_, err := io.ReadFull(r.Body, head)
		require.NoError(t, err)
		close(firstArrived)
		tail, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		got = append(head, tail...)
	}
	console := c.console(t, userToken, nil) // the CA comes from CDIConfig

	// The browser sends the rest only once the proxy has the start: a
	// console that buffered the image would never pass it on.
	body, browser := io.Pipe()
	go func() {
		browser.Write(first)
		select {
		case <-firstArrived:
			browser.Write(rest)
			browser.Close()
		case <-time.After(10 * time.Second):
			browser.CloseWithError(fmt.Errorf("the proxy never saw the start of the image"))
		}
	}()
	code, st := post(t, console.URL+"/console/upload/mine/disk", body, int64(len(first)+len(rest)))

	require.Equal(t, http.StatusOK, code, st.Message)
	assert.Equal(t, metav1.StatusSuccess, st.Status)
	assert.Equal(t, fmt.Sprintf("uploaded %d bytes to DataVolume mine/disk", len(first)+len(rest)), st.Message)
	assert.Equal(t, append(first, rest...), got)
	req := <-c.requests
	assert.Equal(t, "disk", req.Spec.PvcName)
	assert.Equal(t, "mine", req.Namespace)
	for _, a := range c.api.Authorizations() {
		assert.Equal(t, "Bearer "+userToken, a, "every apiserver request is the user's")
	}
}

func TestTheUsersRefusalIsTheApiserversAndNothingIsSent(t *testing.T) {
	c := newCluster(t)
	c.upload = func(http.ResponseWriter, *http.Request) { t.Error("the proxy was reached") }
	code, st := post(t, c.console(t, "bob-token", nil).URL+"/console/upload/mine/disk", strings.NewReader("image"), 5)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Equal(t, metav1.StatusReasonForbidden, st.Reason)
	assert.Contains(t, st.Message, `User "bob" cannot create`)
}

func TestADataVolumeWithoutAnUploadSourceIsRefusedBeforeAToken(t *testing.T) {
	c := newCluster(t)
	code, st := post(t, c.console(t, userToken, nil).URL+"/console/upload/mine/imported", strings.NewReader("image"), 5)
	assert.Equal(t, http.StatusConflict, code)
	assert.Equal(t, "DataVolume mine/imported takes no upload: its spec.source is not upload", st.Message)
	assert.Empty(t, c.requests)
}

func TestTheProxysRefusalIsMappedSoTheUserStaysLoggedIn(t *testing.T) {
	for _, tt := range []struct{ proxy, want int }{
		{http.StatusServiceUnavailable, http.StatusServiceUnavailable},
		{http.StatusConflict, http.StatusConflict},
		{http.StatusUnauthorized, http.StatusBadGateway},
	} {
		c := newCluster(t)
		c.upload = func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "not ready yet", tt.proxy) }
		code, st := post(t, c.console(t, userToken, c.proxyCA()).URL+"/console/upload/mine/disk", strings.NewReader("image"), 5)
		assert.Equal(t, tt.want, code, tt.proxy)
		assert.Equal(t, fmt.Sprintf("cdi-uploadproxy answered %d: not ready yet", tt.proxy), st.Message)
	}
}

func TestAnUntrustedProxyIsNotSentTheImage(t *testing.T) {
	c := newCluster(t)
	c.upload = func(http.ResponseWriter, *http.Request) { t.Error("the image went to an untrusted proxy") }
	wrongCA := selfSignedCA(t)
	code, st := post(t, c.console(t, userToken, wrongCA).URL+"/console/upload/mine/disk", strings.NewReader("image"), 5)
	assert.Equal(t, http.StatusBadGateway, code)
	assert.Contains(t, st.Message, "certificate")
}

// selfSignedCA is a CA no stand-in's certificate chains to (they all
// share httptest's).
func selfSignedCA(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "elsewhere"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestAnImageOfUnknownLengthIsRefused(t *testing.T) {
	c := newCluster(t)
	code, _ := post(t, c.console(t, userToken, nil).URL+"/console/upload/mine/disk", io.MultiReader(strings.NewReader("image")), -1)
	assert.Equal(t, http.StatusLengthRequired, code)
	assert.Empty(t, c.api.Authorizations())
}
