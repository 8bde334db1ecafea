package binaries

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStampLinksTheKubernetesVersion(t *testing.T) {
	s := stamp("v1.37.2")
	for _, want := range []string{
		"-X k8s.io/component-base/version.gitVersion=v1.37.2",
		"-X k8s.io/component-base/version.gitMajor=1",
		"-X k8s.io/component-base/version.gitMinor=37",
		"-X k8s.io/component-base/version.gitTreeState=clean",
	} {
		require.Contains(t, s, want)
	}
}

func TestPinnedVersionReadsRequireLinesAndBlocks(t *testing.T) {
	goMod := filepath.Join(t.TempDir(), "go.mod")
	require.NoError(t, os.WriteFile(goMod, []byte("module x\n\nrequire github.com/containerd/containerd/v2 v2.4.2\n\nrequire (\n\tk8s.io/kubernetes v1.37.2\n\tgo.etcd.io/etcd/server/v3 v3.7.3 // indirect\n)\n"), 0o644))
	v, err := pinnedVersion(goMod, "github.com/containerd/containerd/v2")
	require.NoError(t, err)
	require.Equal(t, "v2.4.2", v)
	vs, err := pinned(goMod)
	require.NoError(t, err)
	require.Equal(t, versions{kubernetes: "v1.37.2", etcd: "v3.7.3"}, vs)
	_, err = pinnedVersion(goMod, "github.com/missing/module")
	require.ErrorContains(t, err, "does not pin github.com/missing/module")
}
