//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/clientcmd"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	hcoc "github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/worker"
)

// TestUpThenUpAgainResumes runs `virtflow up` as a user does, stops it with
// SIGINT, and runs it again on the same data directory: the same
// HyperConverged (same UID) and its completed install workflow are there.
func TestUpThenUpAgainResumes(t *testing.T) {
	dataDir := filepath.Join(env.dir, "up-data")
	require.NoError(t, os.MkdirAll(dataDir, 0o755))
	ports := []int{freePortPair(t), freePortPair(t), freePortPair(t), freePortPair(t)}
	args := []string{"up", "--data-dir", dataDir, "--metrics-port", "0",
		"--etcd-port", strconv.Itoa(ports[0]), "--apiserver-port", strconv.Itoa(ports[1]),
		"--temporal-port", strconv.Itoa(ports[2]), "--temporal-ui-port", strconv.Itoa(ports[3])}

	firstUID := upAndWait(t, args, dataDir)
	secondUID := upAndWait(t, args, dataDir)
	require.Equal(t, firstUID, secondUID, "the HyperConverged survived the restart")
}

// upAndWait runs `virtflow up` until the HyperConverged is Available and its
// install workflow is completed, then stops it with SIGINT.
func upAndWait(t *testing.T, args []string, dataDir string) string {
	t.Helper()
	out := logFile(t, "up")
	cmd := exec.Command(env.virtflowBin, args...)
	cmd.Dir = ".."
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			require.NoError(t, err, "virtflow up did not stop cleanly on SIGINT")
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Fatal("virtflow up did not stop within a minute of SIGINT")
		}
	}()
	var ep platform.Endpoints
	require.Eventually(t, func() bool {
		e, err := platform.ReadEndpoints(dataDir)
		ep = e
		return err == nil && e.PID == cmd.Process.Pid
	}, 3*time.Minute, 200*time.Millisecond, "virtflow up did not come up")
	cfg, err := clientcmd.BuildConfigFromFlags("", ep.Kubeconfig)
	require.NoError(t, err)
	c, err := newClient(cfg)
	require.NoError(t, err)
	hc := &hcov1beta1.HyperConverged{}
	require.Eventually(t, func() bool {
		return c.Get(context.Background(), hcKey(), hc) == nil && meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionAvailable)
	}, 2*time.Minute, 200*time.Millisecond, "HyperConverged did not become Available")

	tc, err := client.Dial(client.Options{HostPort: ep.TemporalAddress, Namespace: worker.DefaultNamespace})
	require.NoError(t, err)
	defer tc.Close()
	desc, err := tc.DescribeWorkflowExecution(context.Background(), hcoc.InstallWorkflowID(string(hc.UID)), "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
	return fmt.Sprint(hc.UID)
}
