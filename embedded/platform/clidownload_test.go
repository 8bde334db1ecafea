package platform

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/embedded/images"
)

// The virtctl builds become one layer, written once beside them, on top
// of the components image's base; the components' own layer stays last.
func TestCLIDownloadsImageLayersTheBuildsOverTheComponentsBase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "virtctl-builds-0123abcd")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "amd64", "linux"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "amd64", "linux", "virtctl"), []byte("elf"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644))
	comps := images.Image{Ref: ComponentsRepository + ":feed", BaseTars: []string{"/base.tar"},
		Layers: [][]images.Entry{{{Path: "/usr/bin/virtflow", Data: []byte("bin"), Mode: 0o755}}}}

	img, err := cliDownloadsImage(comps, dir)
	require.NoError(t, err)
	require.Equal(t, CLIDownloadsRepository+":feed-0123abcd", img.Ref)
	require.Equal(t, []string{"/base.tar", dir + ".layer.tar"}, img.BaseTars)
	require.Equal(t, comps.Layers, img.Layers)
	require.Equal(t, []string{"/base.tar"}, comps.BaseTars, "the components image is left alone")

	f, err := os.Open(dir + ".layer.tar")
	require.NoError(t, err)
	defer f.Close()
	files := map[string]bool{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		files[h.Name] = h.Typeflag == tar.TypeReg
	}
	require.True(t, files["usr/share/virtflow/virtctl/amd64/linux/virtctl"], "%v", files)
	require.NotContains(t, files, "usr/share/virtflow/virtctl/complete")
}
