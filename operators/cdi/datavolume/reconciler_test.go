package datavolume

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

func claimWith(ann map[string]string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "dv", Annotations: ann}}
}

// importing is a relaying run's memo while its disk activity is as a.
func importing(a cdi.ActivityProgress) cdi.ImportProgress {
	return cdi.ImportProgress{Step: cdi.StepImporting, Activity: &a}
}

func httpDV() *cdiv1.DataVolume {
	return &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Name: "dv"}, Spec: cdiv1.DataVolumeSpec{
		Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://x/disk.img"}}}}
}

// A running import's percentage, attempt and the previous attempt's
// failure are what its workflow's memo shows of the disk activity.
func TestImportStatusReadsTheDiskActivityFromTheMemo(t *testing.T) {
	dv := httpDV()
	running := workflowstate.State{Phase: workflowstate.Running}
	st := importStatus(dv, claimWith(nil), running, importing(cdi.ActivityProgress{Name: cdi.ImportDiskName}))
	require.Equal(t, cdiv1.ImportScheduled, st.Phase, "no disk activity yet")

	st = importStatus(dv, claimWith(nil), running, importing(cdi.ActivityProgress{Name: cdi.ImportDiskName, Attempt: 1, Percent: 42.5}))
	require.Equal(t, cdiv1.ImportInProgress, st.Phase)
	require.Equal(t, cdiv1.DataVolumeProgress("42.50%"), st.Progress)
	require.Equal(t, corev1.ConditionTrue, st.Conditions[2].Status)

	st = importStatus(dv, claimWith(nil), running, importing(cdi.ActivityProgress{Name: cdi.ImportDiskName, Attempt: 3, LastFailure: "connection refused"}))
	require.Equal(t, int32(2), st.RestartCount)
	require.Equal(t, corev1.ConditionFalse, st.Conditions[2].Status)
	require.Equal(t, "connection refused", st.Conditions[2].Message)

	clone := httpDV()
	clone.Spec.Source = &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: "src", Name: "disk"}}
	require.Equal(t, cdiv1.CloneScheduled, importStatus(clone, claimWith(nil), running, importing(cdi.ActivityProgress{Name: cdi.CloneDiskName})).Phase)
	require.Equal(t, cdiv1.CloneInProgress, importStatus(clone, claimWith(nil), running, importing(cdi.ActivityProgress{Name: cdi.CloneDiskName, Attempt: 1})).Phase)
}

// An upload is ready while its workflow's memo shows its server listening.
func TestUploadIsReadyWhileItsServerListens(t *testing.T) {
	dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Name: "dv"}, Spec: cdiv1.DataVolumeSpec{
		Source: &cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}}}}
	running := workflowstate.State{Phase: workflowstate.Running}
	started := importing(cdi.ActivityProgress{Name: cdi.ReceiveUploadName, Attempt: 1})
	listening := importing(cdi.ActivityProgress{Name: cdi.ReceiveUploadName, Attempt: 1, UploadServer: "10.0.0.1:4000"})
	require.Equal(t, cdiv1.UploadScheduled, importStatus(dv, claimWith(nil), running, started).Phase)
	require.Equal(t, cdiv1.UploadReady, importStatus(dv, claimWith(nil), running, listening).Phase)
	require.Equal(t, cdiv1.Succeeded, importStatus(dv, claimWith(nil), workflowstate.State{Phase: workflowstate.Succeeded}, cdi.ImportProgress{}).Phase)
}

// A run started before its workflow relayed the disk activity's reports
// (its memo has no Activity) is read as before: the percentage and the
// upload server from the claim, the attempt and failure from the pending
// activity. Transitional; see status_legacy.go.
func TestARunWithoutRelayedProgressIsReadAsBefore(t *testing.T) {
	dv := httpDV()
	old := cdi.ImportProgress{Step: cdi.StepImporting}
	running := workflowstate.State{Phase: workflowstate.Running}
	require.Equal(t, cdiv1.ImportScheduled, importStatus(dv, claimWith(nil), running, old).Phase, "no disk activity yet")

	running.Activities = []workflowstate.PendingActivity{{Type: cdi.ImportDiskName, Attempt: 1}}
	st := importStatus(dv, claimWith(map[string]string{cdi.AnnProgress: "42.50%"}), running, old)
	require.Equal(t, cdiv1.ImportInProgress, st.Phase)
	require.Equal(t, cdiv1.DataVolumeProgress("42.50%"), st.Progress)
	require.Equal(t, corev1.ConditionTrue, st.Conditions[2].Status)

	running.Activities[0] = workflowstate.PendingActivity{Type: cdi.ImportDiskName, Attempt: 3, LastFailure: "connection refused"}
	st = importStatus(dv, claimWith(nil), running, old)
	require.Equal(t, int32(2), st.RestartCount)
	require.Equal(t, corev1.ConditionFalse, st.Conditions[2].Status)
	require.Equal(t, "connection refused", st.Conditions[2].Message)

	upload := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Name: "dv"}, Spec: cdiv1.DataVolumeSpec{
		Source: &cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}}}}
	running.Activities = []workflowstate.PendingActivity{{Type: cdi.ReceiveUploadName, Attempt: 1}}
	require.Equal(t, cdiv1.UploadScheduled, importStatus(upload, claimWith(nil), running, old).Phase)
	require.Equal(t, cdiv1.UploadReady, importStatus(upload, claimWith(map[string]string{cdi.AnnUploadServer: "10.0.0.1:4000"}), running, old).Phase)

	running.Activities = []workflowstate.PendingActivity{{Type: cdi.ImportDiskName, Attempt: 3, LastFailure: "connection refused"}}
	st = importStatus(dv, claimWith(map[string]string{cdi.AnnProgress: "42.50%"}), running, importing(cdi.ActivityProgress{}))
	require.Equal(t, cdiv1.ImportScheduled, st.Phase, "a relaying run is not read from the claim or the pending activities")
	require.Equal(t, cdiv1.DataVolumeProgress("N/A"), st.Progress)
}
