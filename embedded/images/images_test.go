package images

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/require"
)

func sample(t *testing.T, content string) Image {
	src := filepath.Join(t.TempDir(), "tool")
	require.NoError(t, os.WriteFile(src, []byte(content), 0o700))
	return Image{
		Ref: "virtflow.local/sample:1",
		Layers: [][]Entry{{
			{Path: "/usr/bin/tool", Source: src, Mode: 0o755},
			{Path: "/bin/sh", Link: "/usr/bin/tool"},
		}},
		Entrypoint: []string{"/usr/bin/tool"}, User: "65534",
	}
}

func TestAnUnchangedImageHasTheSameDigestAndAChangedOneAnother(t *testing.T) {
	a, err := sample(t, "one").Build()
	require.NoError(t, err)
	b, err := sample(t, "one").Build()
	require.NoError(t, err)
	c, err := sample(t, "two").Build()
	require.NoError(t, err)
	da, _ := a.Digest()
	db, _ := b.Digest()
	dc, _ := c.Digest()
	require.Equal(t, da, db)
	require.NotEqual(t, da, dc)
}

func TestTheArchiveHoldsTheFilesTheirParentsAndTheConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "image.tar")
	built, err := sample(t, "one").Build()
	require.NoError(t, err)
	require.NoError(t, WriteArchive(file, "virtflow.local/sample:1", built))
	tag, err := name.NewTag("virtflow.local/sample:1")
	require.NoError(t, err)
	img, err := tarball.ImageFromPath(file, &tag)
	require.NoError(t, err)
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	require.Equal(t, []string{"/usr/bin/tool"}, cfg.Config.Entrypoint)
	require.Equal(t, "65534", cfg.Config.User)
	require.Equal(t, "amd64", cfg.Architecture)

	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	got := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got[hdr.Name] = hdr
	}
	require.Equal(t, byte(tar.TypeDir), got["usr/"].Typeflag)
	require.Equal(t, byte(tar.TypeDir), got["usr/bin/"].Typeflag)
	require.Equal(t, int64(0o755), got["usr/bin/tool"].Mode, "the entry's mode, not the source's")
	require.Equal(t, int64(3), got["usr/bin/tool"].Size)
	require.Equal(t, "/usr/bin/tool", got["bin/sh"].Linkname)
}

func TestABaseTarIsTheFirstLayer(t *testing.T) {
	base := filepath.Join(t.TempDir(), "rootfs.tar")
	f, err := os.Create(base)
	require.NoError(t, err)
	tw := tar.NewWriter(f)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "etc/os-release", Mode: 0o644, Size: 5, Typeflag: tar.TypeReg}))
	_, err = tw.Write([]byte("base\n"))
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, f.Close())

	img := sample(t, "one")
	img.BaseTars = []string{base}
	built, err := img.Build()
	require.NoError(t, err)
	layers, err := built.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 2)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	hdr, err := tar.NewReader(rc).Next()
	require.NoError(t, err)
	require.Equal(t, "etc/os-release", hdr.Name)
}

// A base tarball is compressed once, beside it, and the image is the same
// with the cache as without it.
func TestABaseTarIsCompressedOnceBesideIt(t *testing.T) {
	base := filepath.Join(t.TempDir(), "rootfs.tar")
	require.NoError(t, WriteLayerTar(base, []Entry{{Path: "/etc/os-release", Data: []byte("base\n"), Mode: 0o644}}))
	uncached := sample(t, "one")
	uncached.BaseTars = []string{base}
	before, err := uncached.Build()
	require.NoError(t, err)
	beforeID, err := before.ConfigName()
	require.NoError(t, err)

	st, err := os.Stat(base + ".gz")
	require.NoError(t, err, "the first build keeps the compressed form")
	again, err := uncached.Build()
	require.NoError(t, err)
	againID, err := again.ConfigName()
	require.NoError(t, err)
	require.Equal(t, beforeID, againID)
	st2, err := os.Stat(base + ".gz")
	require.NoError(t, err)
	require.Equal(t, st.ModTime(), st2.ModTime(), "the second build reuses it")

	layers, err := again.Layers()
	require.NoError(t, err)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	hdr, err := tar.NewReader(rc).Next()
	require.NoError(t, err)
	require.Equal(t, "etc/", hdr.Name, "WriteLayerTar adds the parent directory")
}

// With a cache, an unchanged layer is packed once; a changed source makes
// a new one; the image is the one built without the cache.
func TestACachedLayerIsPackedOnceAndFollowsItsSource(t *testing.T) {
	cache := t.TempDir()
	img := sample(t, "one")
	plain, err := img.Build()
	require.NoError(t, err)
	plainID, err := plain.ConfigName()
	require.NoError(t, err)

	img.CacheDir = cache
	for i := 0; i < 2; i++ {
		built, err := img.Build()
		require.NoError(t, err)
		id, err := built.ConfigName()
		require.NoError(t, err)
		require.Equal(t, plainID, id)
	}
	tars, err := filepath.Glob(filepath.Join(cache, "layer-*"))
	require.NoError(t, err)
	require.Len(t, tars, 1, "packed once, kept compressed only")

	src := img.Layers[0][0].Source
	require.NoError(t, os.WriteFile(src, []byte("two"), 0o700))
	changed, err := img.Build()
	require.NoError(t, err)
	changedID, err := changed.ConfigName()
	require.NoError(t, err)
	require.NotEqual(t, plainID, changedID, "a changed source is a new layer")
	tars, err = filepath.Glob(filepath.Join(cache, "layer-*"))
	require.NoError(t, err)
	require.Len(t, tars, 2)
}
