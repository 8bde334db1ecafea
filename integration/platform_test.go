//go:build integration

package integration

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"k8s.io/apimachinery/pkg/api/meta"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/operators/hco"
	"github.com/virtflow/virtflow/worker"
)

// TestUpThenUpAgainResumes runs the whole embedded platform as `virtflow up`
// does, stops it, and starts it again on the same data directory: the same
// HyperConverged (same UID) and its completed install workflow are there.
func TestUpThenUpAgainResumes(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.MkdirAll(dataDir, 0o755))
	opts := platform.Options{
		DataDir: dataDir, ToolsDir: "../tools/k8s", CacheDir: binaries.DefaultCacheRoot(),
		CreateHyperConverged: true, LogDir: filepath.Join(dataDir, "logs"), UIPort: -1,
		// The etcd peer port is the client port + 1, so pick a pair.
		EtcdPort: freePortPair(t),
	}
	first := upAndWait(t, opts)
	uid := first.hc.UID
	require.NoError(t, first.p.Stop())

	opts.EtcdPort = freePortPair(t)
	second := upAndWait(t, opts)
	defer second.p.Stop()
	require.Equal(t, uid, second.hc.UID, "the HyperConverged survived the restart")

	tc, err := client.Dial(client.Options{HostPort: second.p.TemporalAddress(), Namespace: worker.DefaultNamespace})
	require.NoError(t, err)
	defer tc.Close()
	desc, err := tc.DescribeWorkflowExecution(context.Background(), hco.WorkflowID(string(uid)), "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
}

type upResult struct {
	p  *platform.Platform
	hc *hcov1beta1.HyperConverged
}

func upAndWait(t *testing.T, opts platform.Options) upResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := platform.Start(ctx, opts)
	require.NoError(t, err)
	c, err := newClient(p.ControlPlane().RESTConfig())
	require.NoError(t, err)
	hc := &hcov1beta1.HyperConverged{}
	require.Eventually(t, func() bool {
		if err := c.Get(ctx, hcKey(), hc); err != nil {
			return false
		}
		return meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionAvailable)
	}, 2*time.Minute, 200*time.Millisecond, "HyperConverged did not become Available")
	return upResult{p: p, hc: hc}
}
