package temporal

import (
	"context"
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/virtflow/virtflow/commands/temporalclient"
	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/temporalauth"
)

const testNode = "virtflow-node-n1"

// startGuarded starts an in-memory server without its Web UI, logging to
// the file it returns.
func startGuarded(t *testing.T) (*Server, string) {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "t.log")
	s, err := Start(Config{UIPort: -1, Namespaces: []string{testNamespace}, LogFile: logFile, PKIDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, s.WaitReady(ctx, testNamespace))
	return s, logFile
}

// dialWith connects with tlsCfg, giving up after a few seconds.
func dialWith(t *testing.T, s *Server, tlsCfg temporalclient.TLS) (client.Client, error) {
	t.Helper()
	opts, err := tlsCfg.Options(s.FrontendAddress(), testNamespace)
	require.NoError(t, err)
	opts.Logger = quietLogger{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return client.DialContext(ctx, opts)
}

func requireDenied(t *testing.T, err error, msg string) {
	t.Helper()
	var denied *serviceerror.PermissionDenied
	require.ErrorAs(t, err, &denied, msg)
}

func startOn(c client.Client, id, queue, wf string) error {
	_, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: queue}, wf)
	return err
}

// TestTheFrontendRefusesClientsWithoutACertificateOfItsCA dials without a
// certificate, with one of another CA, and with one of its CA for an
// identity virtflow does not know.
func TestTheFrontendRefusesClientsWithoutACertificateOfItsCA(t *testing.T) {
	s, _ := startGuarded(t)
	_, err := dialWith(t, s, temporalclient.TLS{CA: s.PKI().CA()})
	require.ErrorContains(t, err, "certificate required", "a client without a certificate fails the handshake")

	foreign, err := EnsurePKI(t.TempDir(), nil)
	require.NoError(t, err)
	_, err = dialWith(t, s, temporalclient.TLS{Cert: foreign.Cert(temporalauth.Admin), Key: foreign.Key(temporalauth.Admin), CA: s.PKI().CA()})
	require.ErrorContains(t, err, "unknown certificate authority", "an admin certificate of another CA fails the handshake")

	ca, err := ensureCA(s.PKI())
	require.NoError(t, err)
	require.NoError(t, ensureLeaf(s.PKI(), ca, leaf{name: "intruder", cn: "intruder"}))
	_, err = dialWith(t, s, tlsAs(s, "intruder"))
	requireDenied(t, err, "a certificate of the CA for an unknown identity may not even ask for the system's info")
}

// TestTheFrontendGrantsEachIdentityOnlyItsOwnCalls makes calls each
// identity may and may not make.
func TestTheFrontendGrantsEachIdentityOnlyItsOwnCalls(t *testing.T) {
	s, _ := startGuarded(t)
	ctx := context.Background()
	as := func(id string) client.Client {
		c := dialAs(t, s, id)
		t.Cleanup(c.Close)
		return c
	}
	node, hcoOp, console, admin := as(temporalauth.NodeWorker), as(temporalauth.HCOOperator), as(temporalauth.Console), as(temporalauth.Admin)

	_, err := node.WorkflowService().PollActivityTaskQueue(ctx, &workflowservice.PollActivityTaskQueueRequest{
		Namespace: testNamespace, TaskQueue: &taskqueuepb.TaskQueue{Name: temporalauth.ControlTaskQueue},
	})
	requireDenied(t, err, "a node worker polls the control queue")
	requireDenied(t, startOn(hcoOp, "cdi-import-1", temporalauth.ControlTaskQueue, cdi.ImportWorkflowName), "hco-operator starts an import")
	requireDenied(t, startOn(hcoOp, "hco-install-1", testNode, "hco.InstallHyperConverged"), "hco-operator starts on a node's queue")
	require.NoError(t, startOn(hcoOp, "hco-install-1", temporalauth.ControlTaskQueue, "hco.InstallHyperConverged"))

	requireDenied(t, startOn(console, "hco-install-2", temporalauth.ControlTaskQueue, "hco.InstallHyperConverged"), "the console starts a workflow")
	requireDenied(t, console.TerminateWorkflow(ctx, "hco-install-1", "", "test"), "the console terminates")
	_, err = console.DescribeWorkflowExecution(ctx, "hco-install-1", "")
	require.NoError(t, err, "the console reads")
	require.NoError(t, console.CancelWorkflow(ctx, "hco-install-1", ""), "the console cancels")
	_, err = console.CheckHealth(ctx, &client.CheckHealthRequest{})
	require.NoError(t, err, "health checks answer every identity")

	require.NoError(t, hcoOp.TerminateWorkflow(ctx, "hco-install-1", "", "test"), "an operator terminates its own workflow")
	require.NoError(t, startOn(admin, "anything-1", "any-queue", "test.Anything"), "the admin starts anything")
	require.NoError(t, admin.TerminateWorkflow(ctx, "anything-1", "", "test"))
}

// servedSerial is the serial of the certificate the frontend serves now.
func servedSerial(t *testing.T, s *Server) string {
	t.Helper()
	cfg, err := tlsAs(s, temporalauth.Admin).Config()
	require.NoError(t, err)
	conn, err := tls.Dial("tcp", s.FrontendAddress(), cfg)
	require.NoError(t, err)
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.String()
}

// TestARenewedFrontendCertificateIsServedWithoutARestart re-issues the
// frontend's certificate under a running server.
func TestARenewedFrontendCertificateIsServedWithoutARestart(t *testing.T) {
	certRefresh = 200 * time.Millisecond
	defer func() { certRefresh = time.Minute }()
	s, _ := startGuarded(t)
	before := servedSerial(t, s)
	require.NoError(t, os.Remove(s.PKI().Cert(frontendName)))
	_, err := EnsurePKI(s.PKI().Dir, nil)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return servedSerial(t, s) != before }, 10*time.Second, 100*time.Millisecond)
	c := dialAs(t, s, temporalauth.Console)
	defer c.Close()
	_, err = c.CheckHealth(context.Background(), &client.CheckHealthRequest{})
	require.NoError(t, err, "clients keep connecting")
}
