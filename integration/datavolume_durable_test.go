//go:build integration

package integration

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/activities/storage"
	cdic "github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/operators/kubevirt/kubevirt"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// randomImage writes a raw image of size bytes, all of it random, so every
// byte of it must travel.
func randomImage(t *testing.T, dir string, size int) string {
	t.Helper()
	data := make([]byte, size)
	_, err := rand.Read(data)
	require.NoError(t, err)
	path := filepath.Join(dir, "big.raw")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func progressOf(dv *cdiv1.DataVolume) float64 {
	v, err := strconv.ParseFloat(strings.TrimSuffix(string(dv.Status.Progress), "%"), 64)
	if err != nil {
		return 0
	}
	return v
}

func importMemo(t *testing.T, tc client.Client, id string) cdic.ImportProgress {
	t.Helper()
	var p cdic.ImportProgress
	desc, err := tc.DescribeWorkflowExecution(context.Background(), id, "")
	require.NoError(t, err)
	if payload := desc.WorkflowExecutionInfo.GetMemo().GetFields()[cdic.ProgressMemoKey]; payload != nil {
		require.NoError(t, converter.GetDefaultDataConverter().FromPayload(payload, &p))
	}
	return p
}

// heartbeatOffset is the resume offset the import's running activity last
// heartbeated; 0 when there is none.
func heartbeatOffset(t *testing.T, tc client.Client, id string) int64 {
	desc, err := tc.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		return 0
	}
	for _, a := range desc.GetPendingActivities() {
		var cp struct {
			Offset int64 `json:"offset"`
		}
		if d := a.GetHeartbeatDetails(); d != nil && len(d.Payloads) > 0 &&
			converter.GetDefaultDataConverter().FromPayload(d.Payloads[0], &cp) == nil && cp.Offset > 0 {
			return cp.Offset
		}
	}
	return 0
}

// Killing the node's worker (virt-handler, whose container the kubelet
// restarts) halfway loses nothing: it resumes from the last checkpoint, not
// from zero, and the disk is intact.
func TestImportResumesAfterTheNodeWorkerIsKilled(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := t.TempDir()
	const size = 160 << 20
	src := randomImage(t, dir, size)
	srv := serveImages(t, dir)
	srv.rate.Store(16 << 20)
	s.create(s.importDV("dv-resume", srv.url+"/big.raw", "160Mi", true))
	defer s.deleteDV("dv-resume")

	// Killed once half is in and a checkpoint reached the server: what is
	// tested is the resumption, not how a loaded machine paces heartbeats.
	require.Eventually(t, func() bool {
		dv := s.getDV("dv-resume")
		return progressOf(dv) >= 50 && heartbeatOffset(t, n.tc, cdic.ImportWorkflowID(string(dv.UID))) > 0
	}, 2*time.Minute, 100*time.Millisecond, "the import never reached 50%% with a checkpoint")
	handler := labelledPods(t, n.c, "kubevirt.io", "virt-handler")["virt-handler"]
	require.NoError(t, syscall.Kill(podProcess(t, handler, handlerCommand), syscall.SIGKILL))
	sentBeforeKill := srv.sent.Load()

	dv := s.waitDVPhase("dv-resume", cdiv1.Succeeded, 3*time.Minute)
	require.Equal(t, referenceDigest(t, src, size), fileDigest(t, s.diskOf("dv-resume")), "the resumed disk is intact")
	memo := importMemo(t, n.tc, cdic.ImportWorkflowID(string(dv.UID)))
	require.Greater(t, memo.ResumedFrom, int64(0), "the second attempt started at a checkpoint")
	resent := srv.sent.Load() - sentBeforeKill
	require.Less(t, resent, int64(size)-memo.ResumedFrom/2, "after the kill only the rest was fetched (%d bytes)", resent)
	restarted := &corev1.Pod{}
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKeyFromObject(&handler), restarted))
	require.Positive(t, restarted.Status.ContainerStatuses[0].RestartCount, "the kubelet restarted virt-handler")
	recordHistory(t, n.tc, "workflows/cdi/testdata/import_completed.json", cdic.ImportWorkflowID(string(dv.UID)))
	t.Logf("killed at %d bytes sent; resumed from %d; %d bytes sent after", sentBeforeKill, memo.ResumedFrom, resent)
}

// handlerCommand starts virt-handler in its container.
var handlerCommand = []string{"/usr/bin/virtflow", "virt-handler"}

// Deleting a DataVolume mid-import cancels its workflow, which removes the
// partial disk and the scratch files in virt-handler's pod; the volume goes
// with the claim.
func TestDeletingADataVolumeCancelsItsImport(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := t.TempDir()
	randomImage(t, dir, 64<<20)
	srv := serveImages(t, dir)
	srv.rate.Store(4 << 20)
	ctx := context.Background()
	s.create(s.importDV("dv-cancel", srv.url+"/big.raw", "64Mi", true))
	require.Eventually(t, func() bool { return progressOf(s.getDV("dv-cancel")) > 0 }, time.Minute, 100*time.Millisecond)
	dv := s.getDV("dv-cancel")
	disk := s.diskOf("dv-cancel")
	pvc := &corev1.PersistentVolumeClaim{}
	require.NoError(t, s.c.Get(ctx, s.key("dv-cancel"), pvc))
	handler := labelledPods(t, n.c, "kubevirt.io", "virt-handler")["virt-handler"]
	scratch := filepath.Join(launcherpod.HostEmptyDir(n.kubeletRoot(), string(handler.UID), kubevirt.HandlerScratchVolume),
		filepath.Base(storage.ScratchDir(string(dv.UID))))
	require.DirExists(t, scratch)

	s.deleteDV("dv-cancel")
	desc, err := n.tc.DescribeWorkflowExecution(ctx, cdic.ImportWorkflowID(string(dv.UID)), "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, desc.WorkflowExecutionInfo.Status)
	require.NoDirExists(t, scratch, "scratch files removed")
	require.NoFileExists(t, disk, "partial disk removed")
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(s.c.Get(ctx, types.NamespacedName{Name: pvc.Spec.VolumeName}, &corev1.PersistentVolume{}))
	}, time.Minute, 200*time.Millisecond, "the volume was deleted with its claim")
	require.NoDirExists(t, filepath.Dir(disk), "the volume's directory was removed")
	out, _ := exec.Command("pgrep", "-af", filepath.Base(scratch)).Output()
	require.Empty(t, strings.TrimSpace(string(out)), "no nbdkit or qemu-img left for the import")
}

// A VM names its disk in dataVolumeTemplates: the DataVolume waits for the
// VM's launcher pod to be scheduled (WaitForFirstConsumer), imports on
// that node, and only then does the guest boot from it.
func TestVMBootsFromAnImportedDataVolume(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := t.TempDir()
	out, err := exec.Command("qemu-img", "convert", "-O", "qcow2", filepath.Join(n.guest, "disk.raw"), filepath.Join(dir, "guest.qcow2")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	srv := serveImages(t, dir)

	vm := testGuestVM("vm-dv", kubevirtv1.RunStrategyAlways)
	vm.Namespace = s.ns
	dvt := s.importDV("vm-dv-root", srv.url+"/guest.qcow2", "64Mi", false)
	vm.Spec.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{{ObjectMeta: dvt.ObjectMeta, Spec: dvt.Spec}}
	vm.Spec.DataVolumeTemplates[0].Namespace = ""
	vm.Spec.Template.Spec.Volumes = []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{
		DataVolume: &kubevirtv1.DataVolumeSource{Name: "vm-dv-root"},
	}}}
	s.create(vm)
	defer deleteVM(t, s.c, vm)

	v := runningVMI(t, s.c, crclient.ObjectKeyFromObject(vm))
	dv := s.getDV("vm-dv-root")
	require.Equal(t, cdiv1.Succeeded, dv.Status.Phase, "the guest started only after its disk was imported")
	require.True(t, metaOwnedBy(dv.OwnerReferences, vm.Name), "the VM owns its DataVolume")
	pod := launcherPodOf(t, s.c, v)
	serial := filepath.Join(launcherpod.HostEmptyDir(n.kubeletRoot(), string(pod.UID), launcherpod.PrivateVolume), "serial.log")
	waitForText(t, serial, guestDiskOK, 2*time.Minute)
}

func metaOwnedBy(refs []metav1.OwnerReference, name string) bool {
	for _, r := range refs {
		if r.Kind == "VirtualMachine" && r.Name == name {
			return true
		}
	}
	return false
}
