//go:build integration

package integration

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/commands/temporalclient"
	cdic "github.com/virtflow/virtflow/contracts/cdi"
	hcoc "github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/contracts/temporalauth"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/worker"
)

// temporalRefusesStrangers dials Temporal where pods reach it: without a
// certificate, or with one no platform CA issued, nothing connects; with a
// platform identity stolen from a pod (the node worker's), only that
// identity's own calls pass: it can neither poll the control queue nor
// start a workflow, and none was started.
func temporalRefusesStrangers(t *testing.T, n *upRun) {
	ep, err := platform.ReadEndpoints(n.dataDir)
	require.NoError(t, err)
	_, port, err := net.SplitHostPort(ep.TemporalAddress)
	require.NoError(t, err)
	addr := net.JoinHostPort(platform.NodeBridge.Address.Addr().String(), port)

	dial := func(tlsCfg *tls.Config) error {
		tc, err := client.Dial(client.Options{HostPort: addr, Namespace: worker.DefaultNamespace,
			ConnectionOptions: client.ConnectionOptions{TLS: tlsCfg}})
		if err == nil {
			tc.Close()
		}
		return err
	}
	require.Error(t, dial(nil), "plaintext")
	require.Error(t, dial(&tls.Config{InsecureSkipVerify: true}), "TLS without a client certificate")                               //nolint:gosec
	require.Error(t, dial(&tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{selfSigned(t, "virtflow-admin")}}), //nolint:gosec
		"a certificate named as the admin that Temporal's CA did not issue")

	stolen := stolenIdentity(t, n, temporalauth.NodeWorker)
	opts, err := stolen.Options(addr, worker.DefaultNamespace)
	require.NoError(t, err)
	tc, err := client.Dial(opts)
	require.NoError(t, err, "the node worker's own certificate connects")
	defer tc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = tc.WorkflowService().PollActivityTaskQueue(ctx, &workflowservice.PollActivityTaskQueueRequest{
		Namespace: worker.DefaultNamespace, TaskQueue: &taskqueuepb.TaskQueue{Name: worker.ControlTaskQueue}, Identity: "attacker"})
	var denied *serviceerror.PermissionDenied
	require.ErrorAs(t, err, &denied, "polling the control queue")
	id := cdic.ImportWorkflowID("forged-" + time.Now().Format("150405.000"))
	_, err = tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: worker.ControlTaskQueue}, cdic.ImportWorkflowName, cdic.ImportInput{})
	require.ErrorAs(t, err, &denied, "starting an import")
	require.ErrorAs(t, tc.CancelWorkflow(ctx, hcoc.InstallWorkflowID(n.hcUID), ""), &denied, "cancelling the platform's install")
	_, err = n.tc.DescribeWorkflowExecution(ctx, id, "")
	var notFound *serviceerror.NotFound
	require.ErrorAs(t, err, &notFound, "no workflow was started")
}

// stolenIdentity is a platform identity's Temporal certificate as its
// pod mounts it, copied out of its Secret.
func stolenIdentity(t *testing.T, n *upRun, identity string) temporalclient.TLS {
	t.Helper()
	s := &corev1.Secret{}
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKey{Namespace: platform.Namespace, Name: temporalauth.SecretName(identity)}, s))
	dir := t.TempDir()
	out := temporalclient.TLS{ServerName: platform.NodeBridge.Address.Addr().String()}
	for key, dst := range map[string]*string{temporalauth.CertKey: &out.Cert, temporalauth.KeyKey: &out.Key, temporalauth.CAKey: &out.CA} {
		*dst = filepath.Join(dir, key)
		require.NoError(t, os.WriteFile(*dst, s.Data[key], 0o600))
	}
	return out
}
