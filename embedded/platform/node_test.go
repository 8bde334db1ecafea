package platform

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLauncherCommandPrefersTheStandaloneBinary(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "virtflow")
	require.Equal(t, []string{self, "virt-launcher"}, launcherCommand(self), "without a sibling, the all-in-one binary")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "virt-launcher"), []byte("not executable"), 0o644))
	require.Equal(t, []string{self, "virt-launcher"}, launcherCommand(self), "a sibling that cannot run is ignored")
	require.NoError(t, os.Chmod(filepath.Join(dir, "virt-launcher"), 0o755))
	require.Equal(t, []string{filepath.Join(dir, "virt-launcher")}, launcherCommand(self))
}
