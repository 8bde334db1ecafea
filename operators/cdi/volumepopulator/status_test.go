package volumepopulator

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// A retried import shows on the importer's annotations as a restarted pod
// with the last failure, and its percentage on the target, all from the
// workflow's memo.
func TestThePopulatorShowsARetriedImportFromTheMemo(t *testing.T) {
	prime := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: primeKey}}
	running := workflowstate.State{Phase: workflowstate.Running}
	retried := cdi.ImportProgress{Step: cdi.StepImporting,
		Activity: &cdi.ActivityProgress{Name: cdi.ImportDiskName, Attempt: 3, LastFailure: "connection refused", Percent: 10}}
	imp := importerOf(running, retried, prime)
	ann := podAnnotations(running, imp)
	require.Equal(t, "2", ann[AnnPodRestarts])
	require.Equal(t, "Error", ann[AnnRunningReason])
	require.Equal(t, "connection refused", ann[AnnRunningMessage])
	require.Equal(t, "10.00%", targetAnnotations(prime, ann, imp.progress)[AnnPopulatorProgress])

	scheduled := cdi.ImportProgress{Step: cdi.StepImporting, Activity: &cdi.ActivityProgress{Name: cdi.ImportDiskName}}
	require.Equal(t, "Pending", podAnnotations(running, importerOf(running, scheduled, prime))[AnnPodPhase])
}

// An import started before its workflow relayed the disk activity's
// reports is shown as before: the pending activity's attempt, the prime's
// percentage note. Transitional; see status_legacy.go.
func TestThePopulatorReadsAnOldRunAsBefore(t *testing.T) {
	r, tc := newReconciler(t, fixtures()...)
	ctx := context.Background()
	reconcileTarget(t, r)
	reconcileTarget(t, r)
	bindPrime(t, r)
	reconcileTarget(t, r)
	require.Len(t, tc.started, 1)

	tc.pending[wfID], tc.memo[wfID] = cdi.ImportDiskName, cdi.ImportProgress{Step: cdi.StepImporting}
	prime := get(t, r, primeKey, &corev1.PersistentVolumeClaim{})
	prime.Annotations[cdi.AnnProgress] = "42.00%"
	require.NoError(t, r.Client.Update(ctx, prime))
	reconcileTarget(t, r)
	target := get(t, r, "target", &corev1.PersistentVolumeClaim{})
	require.Equal(t, "Running", target.Annotations[AnnPodPhase])
	require.Equal(t, "42.00%", target.Annotations[AnnPopulatorProgress])
	require.Equal(t, "true", target.Annotations[AnnRunning])
}
