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
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/cdi"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

// A disk activity notes its attempt and progress on the claim it fills,
// where the DataVolume reconciler sees them; cleanup removes the notes.
func TestCloneNotesItsAttemptAndProgressOnTheClaim(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "target", Annotations: map[string]string{"keep": "me"}}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(pvc).Build()
	srcDir, dstDir := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(srcDir, cdi.DiskFileName), make([]byte, 4<<20), 0o644))

	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	a := &Activities{Client: c}
	env.RegisterActivity(a)
	req := cdi.CloneRequest{SourceDir: srcDir, VolumeDir: dstDir, Size: 4 << 20, Key: "c3", Namespace: "ns", Claim: "target"}
	_, err = env.ExecuteActivity(a.CloneDisk, req)
	require.NoError(t, err)
	got := &corev1.PersistentVolumeClaim{}
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "target"}, got))
	require.Equal(t, "1", got.Annotations[cdi.AnnAttempt])
	require.Contains(t, got.Annotations, cdi.AnnProgress)
	require.Equal(t, "me", got.Annotations["keep"])

	_, err = env.ExecuteActivity(a.CleanupImport, cdi.ImportRequest{Namespace: "ns", Claim: "target", VolumeDir: dstDir, Key: "c3"}, false)
	require.NoError(t, err)
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "target"}, got))
	require.Equal(t, map[string]string{"keep": "me"}, got.Annotations)
}
