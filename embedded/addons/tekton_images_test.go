package addons

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/embedded/images"
)

// layerFiles builds img and returns its only layer's entries by path.
func layerFiles(t *testing.T, img images.Image) map[string]*tar.Header {
	built, err := img.Build()
	require.NoError(t, err)
	layers, err := built.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	got := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		require.NoError(t, err)
		got[hdr.Name] = hdr
	}
}

func TestACommandsImageIsShapedAsKoBuildsIt(t *testing.T) {
	binDir, srcDir := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(binDir, "controller"), []byte("binary"), 0o700))
	kodata := filepath.Join(srcDir, "cmd", "controller", "kodata")
	require.NoError(t, os.MkdirAll(kodata, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(kodata, "LICENSE"), []byte("licence"), 0o444))

	img, err := tektonCommandImage(binDir, srcDir, "controller", "v1.15.0")
	require.NoError(t, err)
	require.Equal(t, "virtflow.local/tekton/controller:v1.15.0", img.Ref)
	built, err := img.Build()
	require.NoError(t, err)
	cfg, err := built.ConfigFile()
	require.NoError(t, err)
	require.Equal(t, []string{"/ko-app/controller"}, cfg.Config.Entrypoint)
	require.Contains(t, cfg.Config.Env, "KO_DATA_PATH=/var/run/ko")
	require.Equal(t, "65532", cfg.Config.User)
	files := layerFiles(t, img)
	require.Equal(t, int64(0o755), files["ko-app/controller"].Mode)
	require.Equal(t, int64(len("licence")), files["var/run/ko/LICENSE"].Size)

	img, err = tektonCommandImage(binDir, srcDir, "nop", "v1.15.0")
	require.NoError(t, err)
	require.Len(t, img.Layers[0], 1, "no kodata, only the binary")
}

func TestTheShellImageLinksEveryBusyboxCommand(t *testing.T) {
	img, err := tektonShellImage(fakeBusybox(t), "v1.15.0")
	require.NoError(t, err)
	require.Equal(t, "virtflow.local/tekton/shell:v1.15.0", img.Ref)
	require.Empty(t, img.User, "root, to create directories on any volume")
	files := layerFiles(t, img)
	require.Equal(t, byte(tar.TypeReg), files["bin/busybox"].Typeflag)
	require.Equal(t, "/bin/busybox", files["bin/sh"].Linkname)
	require.Equal(t, "/bin/busybox", files["usr/bin/env"].Linkname)
	require.Equal(t, byte(tar.TypeDir), files["tmp/"].Typeflag)

	_, err = tektonShellImage(filepath.Join(t.TempDir(), "missing"), "v1.15.0")
	require.ErrorContains(t, err, "busybox-static")
}
