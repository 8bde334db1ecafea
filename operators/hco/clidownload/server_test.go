package clidownload

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func fakeBuilds(t *testing.T, skip Platform) string {
	dir := t.TempDir()
	for _, p := range Platforms {
		if p == skip {
			continue
		}
		d := filepath.Join(dir, p.Arch, p.goos())
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, p.binaryName()), []byte("binary for "+p.OS+"/"+p.Arch), 0o755))
	}
	return dir
}

// unpack returns the single file an archive holds: its name and content.
func unpack(t *testing.T, p Platform, data []byte) (string, string) {
	if p.OS == "linux" {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		require.NoError(t, err)
		tr := tar.NewReader(gz)
		h, err := tr.Next()
		require.NoError(t, err)
		require.Equal(t, int64(0o755), h.Mode)
		body, err := io.ReadAll(tr)
		require.NoError(t, err)
		_, err = tr.Next()
		require.Equal(t, io.EOF, err, "one file per archive")
		return h.Name, string(body)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	require.Len(t, zr.File, 1)
	rc, err := zr.File[0].Open()
	require.NoError(t, err)
	body, err := io.ReadAll(rc)
	require.NoError(t, err)
	return zr.File[0].Name, string(body)
}

func TestServesEveryPlatformAtUpstreamPaths(t *testing.T) {
	srv := httptest.NewServer((&Server{Dir: fakeBuilds(t, Platform{})}).Handler())
	defer srv.Close()
	want := map[string]string{
		"/amd64/linux/virtctl.tar.gz": "virtctl", "/amd64/mac/virtctl.zip": "virtctl", "/amd64/windows/virtctl.zip": "virtctl.exe",
		"/arm64/linux/virtctl.tar.gz": "virtctl", "/arm64/mac/virtctl.zip": "virtctl", "/arm64/windows/virtctl.zip": "virtctl.exe",
	}
	for _, p := range Platforms {
		for range 2 { // the second request is served from the packed archive
			resp, err := http.Get(srv.URL + p.Path())
			require.NoError(t, err)
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode, p.Path())
			name, body := unpack(t, p, data)
			require.Equal(t, want[p.Path()], name)
			require.Equal(t, "binary for "+p.OS+"/"+p.Arch, body)
		}
	}
	resp, err := http.Get(srv.URL + "/")
	require.NoError(t, err)
	index, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 6, strings.Count(string(index), "<a href="))
	resp, err = http.Get(srv.URL + "/amd64/plan9/virtctl.zip")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestMissingBuildSaysHowToMakeIt(t *testing.T) {
	missing := Platform{"arm64", "mac"}
	srv := httptest.NewServer((&Server{Dir: fakeBuilds(t, missing)}).Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + missing.Path())
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Contains(t, string(body), "virtctl for mac arm64 was not built (run hack/virtctl-builds.sh)")
}

// In an image the builds are read-only: the archives go to ArchiveDir.
func TestArchivesArePackedOutsideAReadOnlyBuildsDir(t *testing.T) {
	builds, archives := fakeBuilds(t, Platform{}), t.TempDir()
	srv := httptest.NewServer((&Server{Dir: builds, ArchiveDir: archives}).Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/arm64/mac/virtctl.zip")
	require.NoError(t, err)
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	name, body := unpack(t, Platform{"arm64", "mac"}, data)
	require.Equal(t, "virtctl", name)
	require.Equal(t, "binary for mac/arm64", body)
	require.FileExists(t, filepath.Join(archives, "arm64", "darwin", "virtctl.zip"))
	require.NoFileExists(t, filepath.Join(builds, "arm64", "darwin", "virtctl.zip"))
}
