package uploadproxy

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/cdi"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/uploadtoken"
)

// workflows answers DescribeWorkflowExecution from one execution per ID.
type workflows struct {
	t        *testing.T
	status   map[string]enumspb.WorkflowExecutionStatus
	progress map[string]cdi.ImportProgress
}

func (w *workflows) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	s, ok := w.status[id]
	if !ok {
		return nil, serviceerror.NewNotFound(id)
	}
	info := &workflowpb.WorkflowExecutionInfo{Status: s}
	if p, ok := w.progress[id]; ok {
		payload, err := converter.GetDefaultDataConverter().ToPayload(p)
		require.NoError(w.t, err)
		info.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{cdi.ProgressMemoKey: payload}}
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: info}, nil
}

// receiver is an upload server that records what reached it.
type receiver struct {
	mu    sync.Mutex
	auth  []string
	bytes int
	srv   *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n, _ := io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.auth = append(r.auth, req.Header.Get("Authorization"))
		r.bytes += int(n)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) addr() string { return strings.TrimPrefix(r.srv.URL, "http://") }

func (r *receiver) seen() ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auth...), r.bytes
}

type fixture struct {
	proxy        *Proxy
	wf           *workflows
	real, forged *receiver
	token        string
	dv           *cdiv1.DataVolume
}

// newFixture is an upload DataVolume whose claim a namespace editor
// annotated with the address of a server of their own.
func newFixture(t *testing.T) *fixture {
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	f := &fixture{real: newReceiver(t), forged: newReceiver(t)}
	f.dv = &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant", Name: "upload", UID: "uid-upload"},
		Spec: cdiv1.DataVolumeSpec{Source: &cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}}}}
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant", Name: "upload",
		Annotations: map[string]string{cdi.AnnUploadServer: f.forged.addr()}}}
	s, err := kubescheme.New()
	require.NoError(t, err)
	f.wf = &workflows{t: t, status: map[string]enumspb.WorkflowExecutionStatus{}, progress: map[string]cdi.ImportProgress{}}
	f.proxy = &Proxy{Client: fake.NewClientBuilder().WithScheme(s).WithObjects(f.dv, claim).Build(), Workflows: f.wf, PublicKey: pub}
	f.token, err = uploadtoken.Issue(priv, "tenant", "upload", time.Now(), uploadtoken.TTL)
	require.NoError(t, err)
	return f
}

// listening has the upload workflow report the real server.
func (f *fixture) listening() {
	id := cdi.UploadWorkflowID(string(f.dv.UID))
	f.wf.status[id] = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	f.wf.progress[id] = cdi.ImportProgress{Step: cdi.StepImporting,
		Activity: &cdi.ActivityProgress{Name: cdi.ReceiveUploadName, Attempt: 1, UploadServer: f.real.addr()}}
}

func (f *fixture) post(t *testing.T, token string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, UploadPath, bytes.NewReader(make([]byte, 4096)))
	if token != "" {
		req.Header.Set("Authorization", uploadtoken.Bearer(token))
	}
	rec := httptest.NewRecorder()
	f.proxy.Handler().ServeHTTP(rec, req)
	return rec
}

// The proxy routes by the upload workflow's progress, and forwards the
// token it verified; the claim's annotation, which a namespace editor can
// write, routes nothing.
func TestUploadGoesToTheWorkflowsServerWithItsToken(t *testing.T) {
	f := newFixture(t)
	f.listening()
	rec := f.post(t, f.token)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	auth, n := f.real.seen()
	require.Equal(t, []string{"Bearer " + f.token}, auth, "the upload server gets the token to verify")
	require.Equal(t, 4096, n)
	forged, n := f.forged.seen()
	require.Empty(t, forged, "the annotated address got nothing")
	require.Zero(t, n)
}

// Until the workflow reports a listening upload server, nothing is
// forwarded, whatever the claim says.
func TestForgedAnnotationAloneRoutesNothing(t *testing.T) {
	f := newFixture(t)
	id := cdi.UploadWorkflowID(string(f.dv.UID))
	// In order: each step sets a little more of the workflow's state.
	for _, step := range []struct {
		name string
		set  func()
	}{
		{"no workflow", func() {}},
		{"no progress", func() { f.wf.status[id] = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING }},
		{"not listening", func() { f.wf.progress[id] = cdi.ImportProgress{Step: cdi.StepImporting} }},
		{"another activity", func() {
			f.listening()
			f.wf.progress[id].Activity.Name = cdi.ImportDiskName
		}},
		{"closed", func() {
			f.listening()
			f.wf.status[id] = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
		}},
	} {
		step.set()
		rec := f.post(t, f.token)
		require.Equal(t, http.StatusServiceUnavailable, rec.Code, step.name)
		require.Contains(t, rec.Body.String(), "the upload server of tenant/upload is not ready yet", step.name)
	}
	for _, r := range []*receiver{f.real, f.forged} {
		auth, n := r.seen()
		require.Empty(t, auth)
		require.Zero(t, n)
	}
}

func TestUploadWithoutAValidTokenIsUnauthorized(t *testing.T) {
	f := newFixture(t)
	f.listening()
	rec := f.post(t, "")
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Contains(t, rec.Body.String(), "missing upload token")
	rec = f.post(t, "forged.token")
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Contains(t, rec.Body.String(), "upload token refused: invalid token")
	auth, _ := f.real.seen()
	require.Empty(t, auth)
}
