package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/virtflow/virtflow/console/server/operations"
	"github.com/virtflow/virtflow/console/server/session"
	"github.com/virtflow/virtflow/contracts/cdi"
)

// wsURL is the console's websocket address for a path.
func (f *fixture) wsURL(path string) string {
	return "ws" + strings.TrimPrefix(f.console.URL, "http") + path
}

// wsHeader carries the browser's cookies and an Origin.
func (f *fixture) wsHeader(t *testing.T, origin string) http.Header {
	req, _ := http.NewRequest(http.MethodGet, f.console.URL, nil)
	for _, c := range f.browser.Jar.Cookies(req.URL) {
		req.AddCookie(c)
	}
	req.Header.Set("Origin", origin)
	return req.Header
}

func TestTheSerialConsoleIsProxiedAsTheUser(t *testing.T) {
	f := newFixture(t, Config{})
	up := websocket.Upgrader{Subprotocols: []string{"plain.kubevirt.io"}}
	const path = "/apis/subresources.kubevirt.io/v1/namespaces/mine/virtualmachineinstances/vm/console"
	f.api.Mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "Bearer "+aliceToken, r.Header.Get("Authorization"))
		assert.Empty(t, r.Header.Get("Cookie"))
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		_ = ws.WriteMessage(websocket.BinaryMessage, []byte("guest login: "))
		_, data, _ := ws.ReadMessage()
		_ = ws.WriteMessage(websocket.BinaryMessage, data)
	})
	f.login(t)
	dialer := websocket.Dialer{Subprotocols: []string{"plain.kubevirt.io"}}

	_, resp, err := dialer.Dial(f.wsURL(path), f.wsHeader(t, "http://evil.example"))
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "another site's page may not open a console")

	ws, resp, err := dialer.Dial(f.wsURL(path), f.wsHeader(t, f.console.URL))
	require.NoError(t, err)
	defer ws.Close()
	assert.Equal(t, "plain.kubevirt.io", resp.Header.Get("Sec-WebSocket-Protocol"))
	_, data, err := ws.ReadMessage()
	require.NoError(t, err)
	assert.Equal(t, "guest login: ", string(data))
	require.NoError(t, ws.WriteMessage(websocket.BinaryMessage, []byte("root\n")))
	_, data, err = ws.ReadMessage()
	require.NoError(t, err)
	assert.Equal(t, "root\n", string(data))
}

func TestStopEndsAWatch(t *testing.T) {
	f := newFixture(t, Config{})
	f.api.Mux.HandleFunc("GET /apis/kubevirt.io/v1/namespaces/mine/virtualmachines", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"ADDED","object":{}}`+"\n")
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	})
	f.login(t)
	resp := f.do(t, http.MethodGet, "/apis/kubevirt.io/v1/namespaces/mine/virtualmachines?watch=1", "", nil)
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, line, "ADDED", "a watch event arrives at once")

	f.server.Stop()
	done := make(chan error, 1)
	go func() { _, err := io.ReadAll(br); done <- err }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the watch outlived Stop")
	}
}

func TestHealthReadinessAndMetrics(t *testing.T) {
	f := newFixture(t, Config{Assets: fstest.MapFS{"index.html": {Data: []byte("<html></html>")}}})
	assert.Equal(t, http.StatusOK, f.do(t, http.MethodGet, "/healthz", "", nil).StatusCode)
	assert.Equal(t, http.StatusOK, f.do(t, http.MethodGet, "/readyz", "", nil).StatusCode)
	f.do(t, http.MethodGet, "/api/v1/pods", "", nil)

	w := httptest.NewRecorder()
	f.server.MetricsHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	assert.Contains(t, w.Body.String(), `virtflow_console_http_requests_total{code="401",method="GET",route="/api/"} 1`)
	assert.Contains(t, w.Body.String(), `virtflow_console_http_requests_total{code="200",method="GET",route="GET /readyz"} 1`)

	f.api.Close()
	assert.Equal(t, http.StatusServiceUnavailable, f.do(t, http.MethodGet, "/readyz", "", nil).StatusCode)
}

// oneImport is a Temporal with one running import per DataVolume name,
// in namespace "mine" or "theirs".
type oneImport struct {
	execs     []*workflowpb.WorkflowExecutionInfo
	cancelled []string
}

func newOneImport(t *testing.T, dvs ...string) *oneImport {
	o := &oneImport{}
	for _, dv := range dvs {
		o.execs = append(o.execs, &workflowpb.WorkflowExecutionInfo{
			Execution: &commonpb.WorkflowExecution{WorkflowId: "cdi-import-" + strings.ReplaceAll(dv, "/", "-"), RunId: dv},
			Type:      &commonpb.WorkflowType{Name: cdi.ImportWorkflowName}, Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING,
			StartTime: timestamppb.Now(),
		})
	}
	return o
}

func (o *oneImport) ListWorkflow(context.Context, *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	return &workflowservice.ListWorkflowExecutionsResponse{Executions: o.execs}, nil
}

func (o *oneImport) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	for _, e := range o.execs {
		if e.Execution.WorkflowId == id {
			return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: e}, nil
		}
	}
	return nil, io.EOF
}

func (o *oneImport) GetWorkflowHistory(_ context.Context, _, runID string, _ bool, _ enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	p, _ := converter.GetDefaultDataConverter().ToPayload(cdi.ImportInput{DataVolume: runID})
	return &events{[]*historypb.HistoryEvent{{Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
		WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{p}}},
	}}}}
}

func (o *oneImport) CancelWorkflow(_ context.Context, id, _ string) error {
	o.cancelled = append(o.cancelled, id)
	return nil
}

type events struct{ evs []*historypb.HistoryEvent }

func (e *events) HasNext() bool { return len(e.evs) > 0 }

func (e *events) Next() (*historypb.HistoryEvent, error) {
	ev := e.evs[0]
	e.evs = e.evs[1:]
	return ev, nil
}

func TestOperationsAreFilteredByTheUsersAccessReviews(t *testing.T) {
	temporal := newOneImport(t, "mine/disk", "theirs/disk")
	f := newFixture(t, Config{Temporal: temporal, TemporalNamespace: "virtflow", TemporalUI: "http://127.0.0.1:8233"})
	me := f.login(t)

	resp := f.do(t, http.MethodGet, "/console/operations", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var list operations.List
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	require.Len(t, list.Operations, 1)
	op := list.Operations[0]
	assert.Equal(t, "cdi-import-mine-disk", op.ID)
	assert.Equal(t, "http://127.0.0.1:8233/namespaces/virtflow/workflows/cdi-import-mine-disk/mine%2Fdisk/history", op.TemporalUI)
	assert.False(t, op.Cancellable, "alice may not delete in mine")

	resp = f.do(t, http.MethodPost, "/console/operations/cdi-import-mine-disk/cancel", "", map[string]string{session.CSRFHeader: me.CSRFToken})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, body(t, resp), "delete DataVolume mine/disk")
	resp = f.do(t, http.MethodPost, "/console/operations/cdi-import-theirs-disk/cancel", "", map[string]string{session.CSRFHeader: me.CSRFToken})
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Empty(t, temporal.cancelled)
}

func TestTheOperationsStreamFlushesThroughTheServer(t *testing.T) {
	f := newFixture(t, Config{Temporal: newOneImport(t, "mine/disk"), TemporalNamespace: "virtflow"})
	f.login(t)
	resp := f.do(t, http.MethodGet, "/console/operations/stream?namespace=mine", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	br := bufio.NewReader(resp.Body)
	deadline := time.AfterFunc(5*time.Second, func() { resp.Body.Close() })
	defer deadline.Stop()
	for {
		line, err := br.ReadString('\n')
		require.NoError(t, err, "the first event arrives without the stream ending")
		if strings.HasPrefix(line, "data: ") {
			assert.Contains(t, line, "cdi-import-mine-disk")
			return
		}
	}
}
