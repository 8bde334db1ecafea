//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	cdic "github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/operators/cdi/datavolume"
)

// A source that stops sending mid-transfer fails the attempt after the
// stall timeout; the retry resumes from the last checkpoint, the condition
// says what happened meanwhile, and once the source sends again the import
// completes with the source's bytes. The workflow history shows the retry.
func TestAnImportWhoseSourceStallsRecoversWhenItResumes(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := t.TempDir()
	const size = 96 << 20
	src := randomImage(t, dir, size)
	srv := serveImages(t, dir)
	srv.stallAt.Store(72 << 20)
	dv := s.importDV("dv-stall", srv.url+"/big.raw", "96Mi", true)
	dv.Annotations[datavolume.AnnStallTimeout] = "5s"
	s.create(dv)
	defer s.deleteDV("dv-stall")

	require.Eventually(t, func() bool {
		got := s.getDV("dv-stall")
		return got.Status.RestartCount >= 1 && strings.Contains(dvCondition(got, cdiv1.DataVolumeRunning).Message, "no data received from the source for 5s")
	}, 2*time.Minute, 200*time.Millisecond, "the stall never showed in the DataVolume's condition")
	srv.stallAt.Store(0)

	done := s.waitDVPhase("dv-stall", cdiv1.Succeeded, 3*time.Minute)
	require.Equal(t, referenceDigest(t, src, size), fileDigest(t, s.diskOf("dv-stall")), "the disk holds the source's bytes")
	attempt, failure := lastAttempt(t, n.tc, cdic.ImportWorkflowID(string(done.UID)))
	require.GreaterOrEqual(t, attempt, int32(2), "the import was retried")
	require.Contains(t, failure, "Unable to transfer source data")
}

// A source that never resumes fails the import after three attempts that
// stall at the same place, with a condition a user can act on.
func TestAnImportWhoseSourceNeverResumesFailsSayingSo(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := t.TempDir()
	randomImage(t, dir, 32<<20)
	srv := serveImages(t, dir)
	srv.stallAt.Store(8 << 20)
	dv := s.importDV("dv-silent", srv.url+"/big.raw", "32Mi", true)
	dv.Annotations[datavolume.AnnStallTimeout] = "2s"
	s.create(dv)
	defer s.deleteDV("dv-silent")

	failed := s.waitDVPhase("dv-silent", cdiv1.Failed, 3*time.Minute)
	msg := dvCondition(failed, cdiv1.DataVolumeRunning).Message
	require.Contains(t, msg, "Unable to transfer source data from "+srv.url+"/big.raw: no data received from the source for 2s")
	require.Contains(t, msg, "attempt 3 of 3 without progress")
	require.Contains(t, msg, "the source stopped sending: check it and recreate the DataVolume")
}

// lastAttempt is the attempt number and last failure the history records
// for the workflow's activities (the import has one that copies).
func lastAttempt(t *testing.T, tc client.Client, workflowID string) (int32, string) {
	var attempt int32
	var failure string
	it := tc.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && a.GetAttempt() > attempt {
			attempt, failure = a.GetAttempt(), a.GetLastFailure().GetMessage()
		}
	}
	return attempt, failure
}
