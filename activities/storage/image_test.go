package storage

import (
	"bytes"
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sourceImages writes a raw image with random data at its start and a
// qcow2 copy of it, as a web server would offer them.
func sourceImages(t *testing.T) (dir string, raw []byte) {
	dir = t.TempDir()
	raw = make([]byte, 4<<20)
	_, err := rand.Read(raw[:1<<20])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "disk.raw"), raw, 0o644))
	out, err := exec.Command("qemu-img", "convert", "-f", "raw", "-O", "qcow2", filepath.Join(dir, "disk.raw"), filepath.Join(dir, "disk.qcow2")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command("qemu-img", "create", "-q", "-f", "vmdk", filepath.Join(dir, "disk.vmdk"), "1M").CombinedOutput()
	require.NoError(t, err, "%s", out)
	// Compressed copies under names that do not say what they are: the
	// format is detected from the content.
	for src, dst := range map[string]string{"disk.qcow2": "qcow2-gz", "disk.raw": "raw-xz"} {
		tool := map[bool]string{true: "gzip", false: "xz"}[strings.HasSuffix(dst, "gz")]
		data, err := exec.Command(tool, "-c", filepath.Join(dir, src)).Output()
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, dst), data, 0o644))
	}
	out, err = exec.Command("genisoimage", "-quiet", "-o", filepath.Join(dir, "disk.iso"), filepath.Join(dir, "disk.vmdk")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return dir, raw
}

func TestImportHTTPWritesRawFromEverySupportedFormat(t *testing.T) {
	dir, raw := sourceImages(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	formats := map[string]string{"disk.qcow2": "qcow2", "disk.raw": "raw", "qcow2-gz": "qcow2", "raw-xz": "raw"}
	for name, format := range formats {
		dst := filepath.Join(t.TempDir(), "disk.img")
		var seen []float64
		info, err := ImportHTTP(context.Background(), srv.URL+"/"+name, dst, ImportOptions{Cache: "writeback", Progress: func(p float64) { seen = append(seen, p) }})
		require.NoError(t, err, name)
		require.Equal(t, format, info.Format, name)
		require.Equal(t, int64(len(raw)), info.VirtualSize)
		got, err := os.ReadFile(dst)
		require.NoError(t, err)
		require.True(t, bytes.Equal(raw, got), "%s: the written disk holds the source's bytes", name)
		require.NotEmpty(t, seen, "progress was reported")
		require.Equal(t, 100.0, seen[len(seen)-1])
	}
	iso, err := os.ReadFile(filepath.Join(dir, "disk.iso"))
	require.NoError(t, err)
	dst := filepath.Join(t.TempDir(), "iso.img")
	info, err := ImportHTTP(context.Background(), srv.URL+"/disk.iso", dst, ImportOptions{Cache: "writeback"})
	require.NoError(t, err)
	require.Equal(t, "raw", info.Format, "an ISO is imported as it is")
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.True(t, bytes.Equal(iso, got))
}

func TestImportGrowsTheDiskToTheRequestedSize(t *testing.T) {
	dir, raw := sourceImages(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	dst := filepath.Join(t.TempDir(), "disk.img")
	_, err := ImportHTTP(context.Background(), srv.URL+"/qcow2-gz", dst, ImportOptions{Cache: "writeback", Size: 64 << 20})
	require.NoError(t, err)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.Len(t, got, 64<<20, "grown to the requested size")
	require.True(t, bytes.Equal(raw, got[:len(raw)]), "the image's data is kept")
	require.NoError(t, GrowRaw(context.Background(), dst, 1<<20), "never shrinks")
	st, err := os.Stat(dst)
	require.NoError(t, err)
	require.Equal(t, int64(64<<20), st.Size())
}

func TestCompressionIsToldByContent(t *testing.T) {
	require.Equal(t, "gz", compressionOf([]byte{0x1f, 0x8b, 8, 0}))
	require.Equal(t, "xz", compressionOf([]byte{0xfd, '7', 'z', 'X', 'Z', 0, 0}))
	require.Equal(t, "", compressionOf([]byte("QFI\xfb")))
	require.Equal(t, "", compressionOf(nil))
}

func TestImportHTTPSaysWhyItCannot(t *testing.T) {
	dir, _ := sourceImages(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	dst := filepath.Join(t.TempDir(), "disk.img")
	_, err := ImportHTTP(context.Background(), srv.URL+"/missing.qcow2", dst, ImportOptions{Cache: "writeback"})
	require.ErrorContains(t, err, "unable to connect to http data source: expected status code 200, got 404. Status: 404 Not Found")
	_, err = ImportHTTP(context.Background(), srv.URL+"/disk.vmdk", dst, ImportOptions{Cache: "writeback"})
	require.ErrorIs(t, err, ErrUnsupportedImage)
	require.ErrorContains(t, err, "the source is a vmdk image; raw and qcow2 are supported")
	_, err = ImportHTTP(context.Background(), srv.URL+"/disk.qcow2", dst, ImportOptions{Cache: "writeback", Size: 1 << 20})
	require.ErrorIs(t, err, ErrTargetTooSmall)
	require.ErrorContains(t, err, "Virtual image size 4194304 is larger than the reported available storage 1048576. A larger PVC is required.")
	_, err = os.Stat(dst)
	require.True(t, os.IsNotExist(err), "nothing is written from an unsupported source")
}
