package storage

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	authorizationv1 "k8s.io/api/authorization/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
)

func cloneOf(ns, name string) cdiv1.DataVolumeSource {
	return cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: ns, Name: name}}
}

func cloneRequest(dv *cdiv1.DataVolume, srcDir, dstDir string, size int64) cdi.CloneRequest {
	return cdi.CloneRequest{SourceDir: srcDir, VolumeDir: dstDir, Size: size, Key: string(dv.UID), Namespace: dv.Namespace, Claim: dv.Name}
}

func cloneEnv(cl *cluster, dv *cdiv1.DataVolume) (*Activities, *testsuite.TestActivityEnvironment) {
	a := cl.activities(cdi.CloneWorkflowID(string(dv.UID)))
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	return a, env
}

// A clone holds the source's bytes, keeps its holes, and is grown to the
// target's size; a target smaller than the source is refused.
func TestCloneDiskCopiesSparseAndGrows(t *testing.T) {
	cl := newCluster(t)
	_, srcDir := cl.volume("tenant", "golden", nil, testNode)
	dv, dstDir := cl.dataVolume("tenant", "copy", cloneOf("tenant", "golden"))
	small, smallDir := cl.dataVolume("tenant", "small", cloneOf("", "golden"))
	data := make([]byte, 96<<20)
	_, err := rand.Read(data[1<<20 : 3<<20])
	require.NoError(t, err)
	_, err = rand.Read(data[80<<20 : 81<<20])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(srcDir, cdi.DiskFileName), data, 0o644))

	a, env := cloneEnv(cl, dv)
	val, err := env.ExecuteActivity(a.CloneDisk, cloneRequest(dv, srcDir, dstDir, 128<<20))
	require.NoError(t, err)
	var res cdi.ImportResult
	require.NoError(t, val.Get(&res))
	require.Equal(t, int64(96<<20), res.VirtualSize)

	got, err := os.ReadFile(filepath.Join(dstDir, cdi.DiskFileName))
	require.NoError(t, err)
	require.Len(t, got, 128<<20, "grown to the target size")
	require.True(t, bytes.Equal(data, got[:len(data)]))
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(filepath.Join(dstDir, cdi.DiskFileName), &st))
	require.Less(t, st.Blocks*512, int64(16<<20), "holes stayed holes")
	requireOwnedBy(t, filepath.Join(dstDir, cdi.DiskFileName), diskOwner)
	require.Empty(t, cl.reviews, "a clone within one namespace needs no review")

	a.executionID = cl.activities(cdi.CloneWorkflowID(string(small.UID))).executionID
	_, err = env.ExecuteActivity(a.CloneDisk, cloneRequest(small, "", smallDir, 32<<20))
	require.ErrorContains(t, err, "target size 33554432 is smaller than the source's 100663296")
}

// A clone from another namespace is checked again on the node, as CDI
// checks it, for the target namespace's default ServiceAccount: refused
// with CDI's words, it writes nothing; allowed, it copies.
func TestCloneAcrossNamespacesIsAuthorizedAgain(t *testing.T) {
	cl := newCluster(t)
	_, srcDir := cl.volume("golden-images", "fedora", nil, testNode)
	golden := append([]byte("golden bytes"), make([]byte, 1<<20-12)...)
	require.NoError(t, os.WriteFile(filepath.Join(srcDir, cdi.DiskFileName), golden, 0o644))
	dv, dstDir := cl.dataVolume("tenant", "vm-disk", cloneOf("golden-images", "fedora"))
	a, env := cloneEnv(cl, dv)

	_, err := env.ExecuteActivity(a.CloneDisk, cloneRequest(dv, srcDir, dstDir, 1<<20))
	requireRefused(t, err, cdi.ErrTypeCloneNotAuthorized,
		"User system:serviceaccount:tenant:default has insufficient permissions in clone source namespace golden-images")
	_, err = os.Stat(filepath.Join(dstDir, cdi.DiskFileName))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing was written")
	require.NotEmpty(t, cl.reviews)
	require.Equal(t, "system:serviceaccount:tenant:default", cl.reviews[0].Spec.User)
	require.Equal(t, []string{"system:serviceaccounts", "system:serviceaccounts:tenant", "system:authenticated"}, cl.reviews[0].Spec.Groups)
	require.Equal(t, &authorizationv1.ResourceAttributes{Namespace: "golden-images", Verb: "create", Group: "cdi.kubevirt.io",
		Resource: "datavolumes", Subresource: "source", Name: "fedora"}, cl.reviews[0].Spec.ResourceAttributes)

	cl.allowed["system:serviceaccount:tenant:default"] = "golden-images"
	_, err = env.ExecuteActivity(a.CloneDisk, cloneRequest(dv, srcDir, dstDir, 1<<20))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dstDir, cdi.DiskFileName))
	require.NoError(t, err)
	require.True(t, bytes.Equal(golden, got), "the clone holds the source's bytes")
}

// The source is the one the target DataVolume names, never the request's:
// a request pointing at another tenant's volume is refused, and so is a
// DataVolume naming a source that is gone.
func TestCloneRefusesASourceItsDataVolumeDoesNotName(t *testing.T) {
	cl := newCluster(t)
	_, ownDir := cl.volume("tenant", "golden", nil, testNode)
	_, victimDir := cl.volume("victim", "private", nil, testNode)
	require.NoError(t, os.WriteFile(filepath.Join(victimDir, cdi.DiskFileName), []byte("private"), 0o644))
	dv, dstDir := cl.dataVolume("tenant", "copy", cloneOf("tenant", "golden"))
	gone, goneDir := cl.dataVolume("tenant", "orphan", cloneOf("tenant", "deleted"))
	a, env := cloneEnv(cl, dv)

	_, err := env.ExecuteActivity(a.CloneDisk, cloneRequest(dv, victimDir, dstDir, 1<<20))
	requireRefused(t, err, cdi.ErrTypeVolumeMismatch, "the request's source directory "+victimDir+" is not clone source tenant/golden's, "+ownDir)
	_, err = os.Stat(filepath.Join(dstDir, cdi.DiskFileName))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing was copied")

	a.executionID = cl.activities(cdi.CloneWorkflowID(string(gone.UID))).executionID
	_, err = env.ExecuteActivity(a.CloneDisk, cloneRequest(gone, victimDir, goneDir, 1<<20))
	requireRefused(t, err, cdi.ErrTypeVolumeMismatch, "clone source claim tenant/deleted does not exist")
}
