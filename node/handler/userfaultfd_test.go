package handler

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPostCopyEnablesUserfaultfdOnlyWhenAllowed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "unprivileged_userfaultfd")
	require.NoError(t, os.WriteFile(path, []byte("0\n"), 0o644))
	old := userfaultfdSysctl
	userfaultfdSysctl = path
	t.Cleanup(func() { userfaultfdSysctl = old })

	require.NoError(t, allowPostCopy(false))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "0\n", string(got), "a plan without post-copy leaves the kernel's default")

	require.NoError(t, allowPostCopy(true))
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "1\n", string(got))

	userfaultfdSysctl = filepath.Join(t.TempDir(), "missing")
	require.ErrorContains(t, allowPostCopy(true), "for post-copy")
}
