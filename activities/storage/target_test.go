package storage

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
)

var httpSource = cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://images.example/disk.img", SecretRef: "creds"}}

func importRequest(dv *cdiv1.DataVolume, dir string) cdi.ImportRequest {
	return cdi.ImportRequest{Namespace: dv.Namespace, Claim: dv.Name, VolumeDir: dir, Key: string(dv.UID), Size: 1 << 20,
		Source: cdi.SourceRef{URL: dv.Spec.Source.HTTP.URL, SecretRef: dv.Spec.Source.HTTP.SecretRef}}
}

func TestResolveTargetFindsTheDataVolumesOwnVolume(t *testing.T) {
	cl := newCluster(t)
	dv, dir := cl.dataVolume("tenant", "disk", httpSource)
	a := cl.activities(cdi.ImportWorkflowID(string(dv.UID)))
	for _, given := range []string{dir, "", dir + "/"} {
		got, err := a.resolveTarget(context.Background(), fillImport, requestOf(importRequest(dv, given)))
		require.NoError(t, err, "given %q", given)
		require.Equal(t, dir, got.dir)
		require.Equal(t, dv.UID, got.dv.UID)
	}
}

// Every way a request can point a node's privileged disk activity at a
// volume that is not its DataVolume's is refused for good.
func TestResolveTargetRefusesWhatTheClusterDoesNotBearOut(t *testing.T) {
	cl := newCluster(t)
	dv, dir := cl.dataVolume("tenant", "disk", httpSource)
	other, otherDir := cl.dataVolume("victim", "secret-disk", httpSource)
	upload, _ := cl.dataVolume("tenant", "upload", cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}})
	cl.volume("tenant", "loose", nil, testNode)
	cl.volume("tenant", "renamed", metav1.NewControllerRef(dv, cdiv1.SchemeGroupVersion.WithKind("DataVolume")), testNode)
	remote, _ := cl.dataVolume("tenant", "remote", httpSource)
	cl.editVolume("remote", func(pv *corev1.PersistentVolume) {
		pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"node02"}
	})
	outside, _ := cl.dataVolume("tenant", "outside", httpSource)
	cl.editVolume("outside", func(pv *corev1.PersistentVolume) {
		pv.Spec.CSI.VolumeAttributes["path"] = "/etc/" + pv.Name
	})
	hostPath, _ := cl.dataVolume("tenant", "hostpath", httpSource)
	cl.editVolume("hostpath", func(pv *corev1.PersistentVolume) {
		pv.Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}
	})
	stolen, _ := cl.dataVolume("tenant", "stolen", httpSource)
	cl.editVolume("stolen", func(pv *corev1.PersistentVolume) { pv.Spec.ClaimRef.Name = "someone-else" })
	a := cl.activities(cdi.ImportWorkflowID(string(dv.UID)))
	req := func(d *cdiv1.DataVolume, claim, dir string) request {
		return request{namespace: d.Namespace, claim: claim, key: string(d.UID), dir: dir}
	}
	for name, tc := range map[string]struct {
		r    request
		wfID string
		want string
	}{
		"a claim that does not exist":   {r: req(dv, "nope", ""), want: "claim tenant/nope does not exist"},
		"another DataVolume's claim":    {r: request{namespace: "victim", claim: other.Name, key: string(dv.UID), dir: otherDir}, want: "the request is for UID " + string(dv.UID) + ", not for DataVolume victim/secret-disk"},
		"a claim no DataVolume owns":    {r: req(dv, "loose", ""), want: "claim tenant/loose is controlled by no DataVolume"},
		"a claim not named after it":    {r: req(dv, "renamed", ""), want: "claim tenant/renamed is not named after its DataVolume disk"},
		"another directory":             {r: req(dv, dv.Name, otherDir), want: "the request's volume directory " + otherDir + " is not claim tenant/disk's, " + dir},
		"no claim at all":               {r: request{dir: dir}, want: "the request names no claim"},
		"another workflow":              {r: req(dv, dv.Name, dir), wfID: "evil", want: "the activity runs in workflow evil, not in " + cdi.ImportWorkflowID(string(dv.UID))},
		"another fill's DataVolume":     {r: req(upload, upload.Name, ""), wfID: cdi.UploadWorkflowID(string(upload.UID)), want: "DataVolume tenant/upload is not filled by this activity"},
		"a volume of another node":      {r: req(remote, remote.Name, ""), wfID: cdi.ImportWorkflowID(string(remote.UID)), want: "does not pin it to node node01"},
		"a volume outside the root":     {r: req(outside, outside.Name, ""), wfID: cdi.ImportWorkflowID(string(outside.UID)), want: "is not under the node's hostpath root"},
		"a volume of another driver":    {r: req(hostPath, hostPath.Name, ""), wfID: cdi.ImportWorkflowID(string(hostPath.UID)), want: "is not provisioned by kubevirt.io.hostpath-provisioner"},
		"a volume bound to another":     {r: req(stolen, stolen.Name, ""), wfID: cdi.ImportWorkflowID(string(stolen.UID)), want: "is not bound to claim tenant/stolen"},
		"more than the volume holds":    {r: request{namespace: "tenant", claim: "disk", key: string(dv.UID), size: 2 << 30}, want: "exceeds the 1073741824 bytes of volume"},
		"a DataVolume's UID elsewhere":  {r: request{namespace: "tenant", claim: "disk", key: string(other.UID)}, want: "not for DataVolume tenant/disk"},
		"the right UID, the wrong name": {r: request{namespace: "victim", claim: "secret-disk", key: string(other.UID)}, want: "the activity runs in workflow"},
	} {
		t.Run(name, func(t *testing.T) {
			a.executionID = func(context.Context) string { return cmpOr(tc.wfID, cdi.ImportWorkflowID(string(dv.UID))) }
			_, err := a.resolveTarget(context.Background(), fillImport, tc.r)
			requireRefused(t, err, cdi.ErrTypeVolumeMismatch, tc.want)
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// The import populator fills a prime claim in the place of the claim
// that asked for it; the prime is the populator's only if it is named
// and owned as the populator makes it.
func TestResolveTargetOfTheImportPopulator(t *testing.T) {
	cl := newCluster(t)
	target := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant", Name: "vm-disk", UID: "uid-target"},
		Spec: corev1.PersistentVolumeClaimSpec{DataSourceRef: &corev1.TypedObjectReference{
			APIGroup: ptr.To(cdiv1.SchemeGroupVersion.Group), Kind: cdiv1.VolumeImportSourceRef, Name: "src"}}}
	plain := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant", Name: "plain", UID: "uid-plain"}}
	cl.add(target, plain)
	owner := metav1.NewControllerRef(target, corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))
	_, dir := cl.volume("tenant", "prime-uid-target", owner, testNode)
	cl.volume("tenant", "not-a-prime", owner, testNode)
	cl.volume("tenant", "prime-uid-plain", metav1.NewControllerRef(plain, corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim")), testNode)
	a := cl.activities(cdi.ImportWorkflowID("uid-target"))

	got, err := a.resolveTarget(context.Background(), fillImport, request{namespace: "tenant", claim: "prime-uid-target", key: "uid-target", dir: dir})
	require.NoError(t, err)
	require.Equal(t, dir, got.dir)
	require.Equal(t, "vm-disk", got.populated.Name)

	_, err = a.resolveTarget(context.Background(), fillImport, request{namespace: "tenant", claim: "not-a-prime", key: "uid-target"})
	requireRefused(t, err, cdi.ErrTypeVolumeMismatch, "claim tenant/not-a-prime is not the import populator's claim for vm-disk")
	a.executionID = func(context.Context) string { return cdi.ImportWorkflowID("uid-plain") }
	_, err = a.resolveTarget(context.Background(), fillImport, request{namespace: "tenant", claim: "prime-uid-plain", key: "uid-plain"})
	requireRefused(t, err, cdi.ErrTypeVolumeMismatch, "claim tenant/plain does not ask the import populator to fill it")
}

// A refused import writes nothing: not into the volume the request
// names, not into its own.
func TestImportDiskRefusedWritesNothing(t *testing.T) {
	cl := newCluster(t)
	dv, dir := cl.dataVolume("tenant", "disk", httpSource)
	_, victimDir := cl.dataVolume("victim", "secret-disk", httpSource)
	a := cl.activities(cdi.ImportWorkflowID(string(dv.UID)))
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)

	_, err := env.ExecuteActivity(a.ImportDisk, importRequest(dv, victimDir))
	requireRefused(t, err, cdi.ErrTypeVolumeMismatch, "is not claim tenant/disk's")
	forged := importRequest(dv, dir)
	forged.Source.URL = "http://attacker.example/steal"
	_, err = env.ExecuteActivity(a.ImportDisk, forged)
	requireRefused(t, err, cdi.ErrTypeVolumeMismatch, `the request's source "http://attacker.example/steal" is not the one DataVolume tenant/disk names`)
	forged = importRequest(dv, dir)
	forged.Blank = true
	_, err = env.ExecuteActivity(a.ImportDisk, forged)
	requireRefused(t, err, cdi.ErrTypeVolumeMismatch, "blank disk (true) is not what DataVolume tenant/disk asks for")
	for _, d := range []string{dir, victimDir} {
		entries, err := os.ReadDir(d)
		require.NoError(t, err)
		require.Empty(t, entries, "nothing was written into %s", d)
	}
}

// A blank DataVolume's import writes its disk into the directory the
// cluster gives, whatever the request said when it said nothing.
func TestImportDiskWritesTheDataVolumesOwnVolume(t *testing.T) {
	cl := newCluster(t)
	dv, dir := cl.dataVolume("tenant", "blank", cdiv1.DataVolumeSource{Blank: &cdiv1.DataVolumeBlankImage{}})
	a := cl.activities(cdi.ImportWorkflowID(string(dv.UID)))
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	req := cdi.ImportRequest{Namespace: "tenant", Claim: "blank", Key: string(dv.UID), Size: 4 << 20, Blank: true}
	_, err := env.ExecuteActivity(a.ImportDisk, req)
	require.NoError(t, err)
	st, err := os.Stat(filepath.Join(dir, cdi.DiskFileName))
	require.NoError(t, err)
	require.Equal(t, int64(4<<20), st.Size())

	_, err = env.ExecuteActivity(a.CleanupImport, req, true)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, cdi.DiskFileName))
	require.ErrorIs(t, err, os.ErrNotExist, "cleanup removed the disk from the same volume")
}
