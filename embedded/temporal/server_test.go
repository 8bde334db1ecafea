package temporal

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/commands/temporalclient"
	"github.com/virtflow/virtflow/contracts/temporalauth"
)

const testNamespace = "virtflow-test"

func greet(ctx workflow.Context, name string) (string, error) {
	return "hello " + name, nil
}

func start(t *testing.T, db, pkiDir, logFile string) *Server {
	t.Helper()
	s, err := Start(Config{DatabaseFile: db, UIPort: 0, Namespaces: []string{testNamespace}, LogFile: logFile, PKIDir: pkiDir})
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

// tlsAs is how identity reaches s.
func tlsAs(s *Server, identity string) temporalclient.TLS {
	return temporalclient.TLS{Cert: s.PKI().Cert(identity), Key: s.PKI().Key(identity), CA: s.PKI().CA()}
}

// dialAs connects to s with identity's certificate.
func dialAs(t *testing.T, s *Server, identity string) client.Client {
	t.Helper()
	opts, err := tlsAs(s, identity).Options(s.FrontendAddress(), testNamespace)
	require.NoError(t, err)
	c, err := client.Dial(opts)
	require.NoError(t, err, "dialling as %s", identity)
	return c
}

// TestServerPersistsWorkflowsAndServesThemInTheWebUI runs a workflow, checks
// the Web UI lists it, restarts the server on the same SQLite file and
// checks the workflow is still there.
func TestServerPersistsWorkflowsAndServesThemInTheWebUI(t *testing.T) {
	db, pkiDir, logFile := filepath.Join(t.TempDir(), "temporal.db"), t.TempDir(), filepath.Join(t.TempDir(), "t.log")
	s := start(t, db, pkiDir, logFile)
	c := dialAs(t, s, temporalauth.Admin)
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
	serverLog, err := os.ReadFile(logFile)
	require.NoError(t, err)
	require.NotContains(t, string(serverLog), "refused a Temporal call", "the Web UI reads with its own certificate")
	require.NoError(t, s.Stop())

	s2 := start(t, db, pkiDir, filepath.Join(t.TempDir(), "t.log"))
	defer s2.Stop()
	c2 := dialAs(t, s2, temporalauth.Admin)
	defer c2.Close()
	desc, err := c2.DescribeWorkflowExecution(context.Background(), "greet-1", "")
	require.NoError(t, err)
	require.Equal(t, "test.Greet", desc.WorkflowExecutionInfo.Type.Name, "the workflow survived the restart")
}
