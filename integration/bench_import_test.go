//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/activities/storage"
)

// importRow measures the import data path alone (no DataVolume
// controller yet): a qcow2 of 1 GiB virtual size, a quarter of it data,
// read over loopback HTTP and written as raw, against downloading it with
// curl and converting the file with qemu-img.
func (b *bencher) importRow(dir, src string) benchRow {
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()

	ours := time.Now()
	mode := storage.CacheModeFor(dir)
	_, err := storage.ImportHTTP(context.Background(), srv.URL+"/"+filepath.Base(src), filepath.Join(dir, "ours.img"), storage.ImportOptions{Cache: mode})
	require.NoError(b.t, err)
	took := time.Since(ours)

	base := time.Now()
	runTool(b.t, "curl", "-sf", "-o", filepath.Join(dir, "dl.qcow2"), srv.URL+"/"+filepath.Base(src))
	runTool(b.t, "qemu-img", "convert", "-t", mode, "-f", "qcow2", "-O", "raw", filepath.Join(dir, "dl.qcow2"), filepath.Join(dir, "base.img"))
	baseline := time.Since(base)
	for _, f := range []string{"ours.img", "dl.qcow2", "base.img"} {
		_ = os.Remove(filepath.Join(dir, f))
	}
	return benchRow{
		name: "import qcow2 (1 GiB virtual, 256 MiB data) over loopback HTTP",
		ours: took, baseline: baseline,
		note: fmt.Sprintf("data path only (nbdkit curl → qemu-img, cache=%s), %.0f MB/s of data; baseline: curl to a file, then qemu-img convert", mode, 256/took.Seconds()*1.048576),
	}
}

func runTool(t require.TestingT, name string, args ...string) {
	out, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(t, err, "%s %v: %s", name, args, out)
}
