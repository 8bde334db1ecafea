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

	"github.com/virtflow/virtflow/contracts/cdi"
)

// A clone holds the source's bytes, keeps its holes, and is grown to the
// target's size; a target smaller than the source is refused.
func TestCloneDiskCopiesSparseAndGrows(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	data := make([]byte, 96<<20)
	_, err := rand.Read(data[1<<20 : 3<<20])
	require.NoError(t, err)
	_, err = rand.Read(data[80<<20 : 81<<20])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(srcDir, cdi.DiskFileName), data, 0o644))

	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	a := &Activities{DiskUID: diskOwner, DiskGID: diskOwner}
	env.RegisterActivity(a.CloneDisk)
	val, err := env.ExecuteActivity(a.CloneDisk, cdi.CloneRequest{SourceDir: srcDir, VolumeDir: dstDir, Size: 128 << 20, Key: "c1"})
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

	_, err = env.ExecuteActivity(a.CloneDisk, cdi.CloneRequest{SourceDir: srcDir, VolumeDir: t.TempDir(), Size: 32 << 20, Key: "c2"})
	require.ErrorContains(t, err, "target size 33554432 is smaller than the source's 100663296")
}
