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
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/node/handler"
)

// nodeWorkerProcess runs a node's worker as its own process, so a test can
// kill it.
func nodeWorkerProcess(t *testing.T, node string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(env.virtflowBin, "worker", "--node", node,
		"--kubeconfig", env.cp.ComponentKubeconfigPath(), "--temporal-address", env.temporal.FrontendAddress())
	out := logFile(t, "node-worker")
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
	})
	return cmd
}

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

func importMemo(t *testing.T, id string) cdic.ImportProgress {
	t.Helper()
	var p cdic.ImportProgress
	desc, err := env.tc.DescribeWorkflowExecution(context.Background(), id, "")
	require.NoError(t, err)
	if payload := desc.WorkflowExecutionInfo.GetMemo().GetFields()[cdic.ProgressMemoKey]; payload != nil {
		require.NoError(t, converter.GetDefaultDataConverter().FromPayload(payload, &p))
	}
	return p
}

// Killing the node's worker halfway loses nothing: a new worker resumes
// from the last checkpoint, not from zero, and the disk is intact.
func TestImportResumesAfterTheNodeWorkerIsKilled(t *testing.T) {
	node := storageNode(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, SkipNodeWorkers: true, Nodes: []handler.Config{node}})
	dir := t.TempDir()
	const size = 160 << 20
	src := randomImage(t, dir, size)
	srv := serveImages(t, dir)
	srv.rate.Store(16 << 20)
	first := nodeWorkerProcess(t, node.NodeName)
	require.NoError(t, env.admin.Create(context.Background(), importDV("dv-resume", srv.url+"/big.raw", "160Mi", true)))
	defer deleteDV(t, "dv-resume")

	require.Eventually(t, func() bool { return progressOf(getDV(t, "dv-resume")) >= 50 }, 2*time.Minute, 100*time.Millisecond,
		"the import never reached 50%%")
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	_, _ = first.Process.Wait()
	sentBeforeKill := srv.sent.Load()
	nodeWorkerProcess(t, node.NodeName)

	dv := waitDVPhase(t, "dv-resume", cdiv1.Succeeded, 3*time.Minute)
	require.Equal(t, referenceDigest(t, src, size), fileDigest(t, diskOf(t, "dv-resume")), "the resumed disk is intact")
	memo := importMemo(t, cdic.ImportWorkflowID(string(dv.UID)))
	require.Greater(t, memo.ResumedFrom, int64(0), "the second attempt started at a checkpoint")
	resent := srv.sent.Load() - sentBeforeKill
	require.Less(t, resent, int64(size)-memo.ResumedFrom/2, "after the kill only the rest was fetched (%d bytes)", resent)
	recordHistory(t, "workflows/cdi/testdata/import_completed.json", cdic.ImportWorkflowID(string(dv.UID)))
	t.Logf("killed at %d bytes sent; resumed from %d; %d bytes sent after", sentBeforeKill, memo.ResumedFrom, resent)
}

// Deleting a DataVolume mid-import cancels its workflow, which removes the
// partial disk and scratch files; the volume goes with the claim.
func TestDeletingADataVolumeCancelsItsImport(t *testing.T) {
	node := storageNode(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, Nodes: []handler.Config{node}})
	dir := t.TempDir()
	randomImage(t, dir, 64<<20)
	srv := serveImages(t, dir)
	srv.rate.Store(4 << 20)
	ctx := context.Background()
	require.NoError(t, env.admin.Create(ctx, importDV("dv-cancel", srv.url+"/big.raw", "64Mi", true)))
	require.Eventually(t, func() bool { return progressOf(getDV(t, "dv-cancel")) > 0 }, time.Minute, 100*time.Millisecond)
	dv := getDV(t, "dv-cancel")
	disk := diskOf(t, "dv-cancel")
	pvc := &corev1.PersistentVolumeClaim{}
	require.NoError(t, env.admin.Get(ctx, types.NamespacedName{Namespace: "default", Name: "dv-cancel"}, pvc))
	scratch := storage.ScratchDir(string(dv.UID))
	require.DirExists(t, scratch)

	deleteDV(t, "dv-cancel")
	desc, err := env.tc.DescribeWorkflowExecution(ctx, cdic.ImportWorkflowID(string(dv.UID)), "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, desc.WorkflowExecutionInfo.Status)
	require.NoDirExists(t, scratch, "scratch files removed")
	require.NoFileExists(t, disk, "partial disk removed")
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(env.admin.Get(ctx, types.NamespacedName{Name: pvc.Spec.VolumeName}, &corev1.PersistentVolume{}))
	}, time.Minute, 200*time.Millisecond, "the volume was deleted with its claim")
	require.NoDirExists(t, filepath.Dir(disk), "the volume's directory was removed")
	out, _ := exec.Command("pgrep", "-af", scratch).Output()
	require.Empty(t, strings.TrimSpace(string(out)), "no nbdkit or qemu-img left for the import")
}

// A VM names its disk in dataVolumeTemplates: the DataVolume waits for the
// VM's launcher pod to be scheduled (WaitForFirstConsumer), imports on
// that node, and only then does the guest boot from it.
func TestVMBootsFromAnImportedDataVolume(t *testing.T) {
	node := storageNode(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, Nodes: []handler.Config{node}})
	store := imageStore(t)
	dir := t.TempDir()
	out, err := exec.Command("qemu-img", "convert", "-O", "qcow2",
		filepath.Join(store, "virtflow", "test-guest", "latest", "disk", "disk.raw"), filepath.Join(dir, "guest.qcow2")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	srv := serveImages(t, dir)

	vm := testGuestVM("vm-dv", kubevirtv1.RunStrategyAlways)
	dvt := importDV("vm-dv-root", srv.url+"/guest.qcow2", "64Mi", false)
	vm.Spec.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{{ObjectMeta: dvt.ObjectMeta, Spec: dvt.Spec}}
	vm.Spec.DataVolumeTemplates[0].Namespace = ""
	vm.Spec.Template.Spec.Volumes = []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{
		DataVolume: &kubevirtv1.DataVolumeSource{Name: "vm-dv-root"},
	}}}
	ctx := context.Background()
	require.NoError(t, env.admin.Create(ctx, vm))
	defer deleteVM(t, env.admin, vm)

	v := runningVMI(t, env.admin, crclient.ObjectKeyFromObject(vm))
	dv := getDV(t, "vm-dv-root")
	require.Equal(t, cdiv1.Succeeded, dv.Status.Phase, "the guest started only after its disk was imported")
	require.True(t, metaOwnedBy(dv.OwnerReferences, vm.Name), "the VM owns its DataVolume")
	pods := &corev1.PodList{}
	require.NoError(t, env.admin.List(ctx, pods, crclient.MatchingLabels{kubevirtv1.CreatedByLabel: string(v.UID)}))
	require.Len(t, pods.Items, 1)
	waitForText(t, filepath.Join(node.Dir, "default_"+pods.Items[0].Name, "serial.log"), guestDiskOK, 2*time.Minute)
}

func metaOwnedBy(refs []metav1.OwnerReference, name string) bool {
	for _, r := range refs {
		if r.Kind == "VirtualMachine" && r.Name == name {
			return true
		}
	}
	return false
}
