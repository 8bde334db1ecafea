package platform

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/embedded/kubenode"
	"github.com/virtflow/virtflow/wire/cniimage"
)

func TestTheMultusImageCarriesThePluginsWhereTheDaemonSetsCopyFrom(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "multus"), []byte("bin"), 0o755))
	img, err := multusImage(nodeTools{multus: dir, multusVersion: "v4.2.2"}, []string{"/base.tar"})
	if _, statErr := os.Stat(filepath.Join(kubenode.DefaultCNIBinDir, "bridge")); statErr != nil {
		require.ErrorContains(t, err, "containernetworking-plugins", "no host plugins, no image")
		return
	}
	require.NoError(t, err)
	assert.Equal(t, "virtflow.local/multus:v4.2.2", img.Ref)
	assert.Equal(t, []string{"/base.tar"}, img.BaseTars, "a shell to copy with")
	paths := map[string]string{}
	for _, e := range img.Layers[0] {
		paths[e.Path] = e.Source
	}
	assert.Equal(t, filepath.Join(dir, "multus"), paths[cniimage.MultusBinary])
	assert.Equal(t, "/usr/lib/cni/bridge", paths[cniimage.PluginDir+"/bridge"])
	assert.Equal(t, "/usr/lib/cni/tuning", paths[cniimage.PluginDir+"/tuning"])
}
