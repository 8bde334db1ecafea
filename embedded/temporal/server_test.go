package temporal

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

const testNamespace = "virtflow-test"

func greet(ctx workflow.Context, name string) (string, error) {
	return "hello " + name, nil
}

func start(t *testing.T, db string) *Server {
	t.Helper()
	s, err := Start(Config{DatabaseFile: db, UIPort: 0, Namespaces: []string{testNamespace}, LogFile: filepath.Join(t.TempDir(), "t.log")})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, s.WaitReady(ctx, testNamespace))
	return s
}

func uiGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// TestServerPersistsWorkflowsAndServesThemInTheWebUI runs a workflow, checks
// the Web UI lists it, restarts the server on the same SQLite file and
// checks the workflow is still there.
func TestServerPersistsWorkflowsAndServesThemInTheWebUI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "temporal.db")
	s := start(t, db)
	c, err := client.Dial(client.Options{HostPort: s.FrontendAddress(), Namespace: testNamespace})
	require.NoError(t, err)
	w := worker.New(c, "q", worker.Options{})
	w.RegisterWorkflowWithOptions(greet, workflow.RegisterOptions{Name: "test.Greet"})
	require.NoError(t, w.Start())
	run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: "greet-1", TaskQueue: "q"}, "test.Greet", "virtflow")
	require.NoError(t, err)
	var out string
	require.NoError(t, run.Get(context.Background(), &out))
	require.Equal(t, "hello virtflow", out)
	w.Stop()
	c.Close()

	require.True(t, strings.HasPrefix(s.UIAddress(), "http://127.0.0.1:"))
	require.Contains(t, uiGet(t, s.UIAddress()+"/"), "<html")
	require.Eventually(t, func() bool {
		return strings.Contains(uiGet(t, s.UIAddress()+"/api/v1/namespaces/"+testNamespace+"/workflows"), "greet-1")
	}, 10*time.Second, 100*time.Millisecond, "the Web UI does not list the workflow")
	require.NoError(t, s.Stop())

	s2 := start(t, db)
	defer s2.Stop()
	c2, err := client.Dial(client.Options{HostPort: s2.FrontendAddress(), Namespace: testNamespace})
	require.NoError(t, err)
	defer c2.Close()
	desc, err := c2.DescribeWorkflowExecution(context.Background(), "greet-1", "")
	require.NoError(t, err)
	require.Equal(t, "test.Greet", desc.WorkflowExecutionInfo.Type.Name, "the workflow survived the restart")
}
