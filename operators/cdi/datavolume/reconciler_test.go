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

// A running import's percentage is what the disk activity noted on the
// claim; a retried attempt shows the previous one's failure.
func TestImportStatusReadsProgressFromTheClaimAndFailuresFromTheActivity(t *testing.T) {
	dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Name: "dv"}, Spec: cdiv1.DataVolumeSpec{
		Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://x/disk.img"}}}}
	running := workflowstate.State{Phase: workflowstate.Running}
	st := importStatus(dv, claimWith(nil), running)
	require.Equal(t, cdiv1.ImportScheduled, st.Phase, "no disk activity yet")

	running.Activities = []workflowstate.PendingActivity{{Type: cdi.ImportDiskName, Attempt: 1}}
	st = importStatus(dv, claimWith(map[string]string{cdi.AnnProgress: "42.50%"}), running)
	require.Equal(t, cdiv1.ImportInProgress, st.Phase)
	require.Equal(t, cdiv1.DataVolumeProgress("42.50%"), st.Progress)
	require.Equal(t, corev1.ConditionTrue, st.Conditions[2].Status)

	running.Activities[0] = workflowstate.PendingActivity{Type: cdi.ImportDiskName, Attempt: 3, LastFailure: "connection refused"}
	st = importStatus(dv, claimWith(nil), running)
	require.Equal(t, int32(2), st.RestartCount)
	require.Equal(t, corev1.ConditionFalse, st.Conditions[2].Status)
	require.Equal(t, "connection refused", st.Conditions[2].Message)
}

// An upload is ready once its server noted its address on the claim.
func TestUploadIsReadyOnceItsServerIsNotedOnTheClaim(t *testing.T) {
	dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Name: "dv"}, Spec: cdiv1.DataVolumeSpec{
		Source: &cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}}}}
	running := workflowstate.State{Phase: workflowstate.Running,
		Activities: []workflowstate.PendingActivity{{Type: cdi.ReceiveUploadName, Attempt: 1}}}
	require.Equal(t, cdiv1.UploadScheduled, importStatus(dv, claimWith(nil), running).Phase)
	require.Equal(t, cdiv1.UploadReady, importStatus(dv, claimWith(map[string]string{cdi.AnnUploadServer: "10.0.0.1:4000"}), running).Phase)
	require.Equal(t, cdiv1.Succeeded, importStatus(dv, claimWith(nil), workflowstate.State{Phase: workflowstate.Succeeded}).Phase)
}
