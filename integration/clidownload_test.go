//go:build integration

package integration

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/operators/hco/clidownload"
)

// TestCLIDownloadServesRunnableVirtctlBuilds downloads every platform's
// virtctl archive from hco's cli-download pod, through its Service, and
// runs the linux/amd64 one.
func TestCLIDownloadServesRunnableVirtctlBuilds(t *testing.T) {
	n := onNode(t)
	pod := labelledPods(t, n.c, "name", platform.CLIDownloadService)[platform.CLIDownloadService]
	require.True(t, strings.HasPrefix(pod.Spec.Containers[0].Image, platform.CLIDownloadsRepository+":"), pod.Spec.Containers[0].Image)
	svc := &corev1.Service{}
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKey{Namespace: platform.Namespace, Name: platform.CLIDownloadService}, svc))
	base := fmt.Sprintf("http://%s:8080", svc.Spec.ClusterIP)

	magic := map[string]string{"linux": "\x7fELF", "mac": "\xcf\xfa\xed\xfe", "windows": "MZ"}
	for _, p := range clidownload.Platforms {
		name, bin := download(t, base+p.Path())
		require.True(t, strings.HasPrefix(string(bin[:4]), magic[p.OS]), "%s holds a %s executable", p.Path(), p.OS)
		if p.OS == "windows" {
			require.Equal(t, "virtctl.exe", name)
		} else {
			require.Equal(t, "virtctl", name)
		}
		if p.Arch == "amd64" && p.OS == "linux" {
			path := filepath.Join(t.TempDir(), "virtctl")
			require.NoError(t, os.WriteFile(path, bin, 0o755))
			manifest, err := exec.Command(path, "create", "vm", "--name", "downloaded").CombinedOutput()
			require.NoError(t, err, "%s", manifest)
			require.Contains(t, string(manifest), "name: downloaded")
		}
	}
}

// download fetches an archive and returns the one file it holds.
func download(t *testing.T, url string) (string, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", url, data)
	if strings.HasSuffix(url, ".tar.gz") {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		require.NoError(t, err)
		tr := tar.NewReader(gz)
		h, err := tr.Next()
		require.NoError(t, err)
		bin, err := io.ReadAll(tr)
		require.NoError(t, err)
		return h.Name, bin
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	require.Len(t, zr.File, 1)
	rc, err := zr.File[0].Open()
	require.NoError(t, err)
	bin, err := io.ReadAll(rc)
	require.NoError(t, err)
	return zr.File[0].Name, bin
}
