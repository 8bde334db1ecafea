//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/stretchr/testify/require"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/activities/storage"
)

// benchImage writes a raw image of 1 GiB virtual size whose first 256 MiB
// are random data, and its qcow2 form.
func (b *bencher) benchImage(dir string) (raw, qcow2 string) {
	raw, qcow2 = filepath.Join(dir, "src.raw"), filepath.Join(dir, "src.qcow2")
	runTool(b.t, "qemu-img", "create", "-q", "-f", "raw", raw, "1G")
	runTool(b.t, "dd", "if=/dev/urandom", "of="+raw, "bs=1M", "count=256", "conv=notrunc", "status=none")
	runTool(b.t, "qemu-img", "convert", "-f", "raw", "-O", "qcow2", raw, qcow2)
	return raw, qcow2
}

// space is the harness's default namespace.
func (b *bencher) space() *space { return &space{t: b.t, c: b.client, ns: "default"} }

// timeDV creates dv and measures until it is Succeeded.
func (b *bencher) timeDV(dv *cdiv1.DataVolume) time.Duration {
	start := time.Now()
	require.NoError(b.t, b.client.Create(context.Background(), dv))
	b.space().waitDVPhase(dv.Name, cdiv1.Succeeded, 5*time.Minute)
	return time.Since(start)
}

// dvImportRow is a whole DataVolume import (controller, workflow, node
// activity) of the qcow2 over loopback HTTP, against curl then qemu-img.
func (b *bencher) dvImportRow(dir, qcow2 string) benchRow {
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	took := b.timeDV(b.space().importDV("bench-import", srv.URL+"/"+filepath.Base(qcow2), "1Gi", true))
	defer b.space().deleteDV("bench-import")
	mode := storage.CacheModeFor(filepath.Dir(b.space().diskOf("bench-import")))
	base := time.Now()
	runTool(b.t, "curl", "-sf", "-o", filepath.Join(dir, "dl.qcow2"), srv.URL+"/"+filepath.Base(qcow2))
	runTool(b.t, "qemu-img", "convert", "-t", mode, "-f", "qcow2", "-O", "raw", filepath.Join(dir, "dl.qcow2"), filepath.Join(dir, "base.img"))
	baseline := time.Since(base)
	return benchRow{
		name: "DataVolume import qcow2 (1 GiB virtual, 256 MiB data) over loopback HTTP",
		ours: took, baseline: baseline,
		note: fmt.Sprintf("create → Succeeded (binding, workflow, node activity, cache=%s); baseline: curl to a file, then qemu-img convert", mode),
	}
}

// uploadRow uploads the raw image through cdi-uploadproxy (token, TLS,
// node upload server) against curl posting it to a plain server that
// writes it to a file.
func (b *bencher) uploadRow(dir, raw, proxy string) benchRow {
	start := time.Now()
	require.NoError(b.t, b.client.Create(context.Background(), b.space().uploadDV("bench-upload", "1Gi")))
	defer b.space().deleteDV("bench-upload")
	b.space().waitDVPhase("bench-upload", cdiv1.UploadReady, time.Minute)
	data, err := os.Open(raw)
	require.NoError(b.t, err)
	defer data.Close()
	st, err := data.Stat()
	require.NoError(b.t, err)
	code, msg := postUploadFrom(b.t, proxy, uploadToken(b.t, env.cp.RESTConfig(), "default", "bench-upload"), data, st.Size())
	require.Equal(b.t, http.StatusOK, code, msg)
	b.space().waitDVPhase("bench-upload", cdiv1.Succeeded, time.Minute)
	took := time.Since(start)

	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Create(filepath.Join(dir, "sink.raw"))
		if err == nil {
			_, _ = io.Copy(f, r.Body)
			f.Close()
		}
	}))
	defer sink.Close()
	base := time.Now()
	runTool(b.t, "curl", "-sf", "-X", "POST", "-T", raw, sink.URL)
	baseline := time.Since(base)
	return benchRow{
		name: "upload raw 1 GiB (256 MiB data) through cdi-uploadproxy",
		ours: took, baseline: baseline,
		note: fmt.Sprintf("DataVolume create → Succeeded, %.0f MB/s; single pass into the disk; baseline: curl POST to a server writing a file", 1073.7/took.Seconds()),
	}
}

// cloneRow clones the imported disk into a new DataVolume against
// cp --sparse=always of the same file.
func (b *bencher) cloneRow(dir string) benchRow {
	dv := b.space().importDV("bench-clone", "", "1Gi", false)
	dv.Spec.Source = &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: "default", Name: "bench-source"}}
	took := b.timeDV(dv)
	defer b.space().deleteDV("bench-clone")
	base := time.Now()
	runTool(b.t, "cp", "--sparse=always", b.space().diskOf("bench-source"), filepath.Join(dir, "cp.img"))
	baseline := time.Since(base)
	return benchRow{
		name: "clone 1 GiB disk (256 MiB data) on hostpath",
		ours: took, baseline: baseline,
		note: fmt.Sprintf("DataVolume create → Succeeded, %.0f MB/s of virtual size; baseline: cp --sparse=always", 1073.7/took.Seconds()),
	}
}

// storageRows measures import, upload and clone on the real stack.
func (b *bencher) storageRows(proxy string) []benchRow {
	hostpathStorage(b.t)
	dir := b.t.TempDir()
	raw, qcow2 := b.benchImage(dir)
	rows := []benchRow{b.importRow(dir, qcow2), b.dvImportRow(dir, qcow2)}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	b.timeDV(b.space().importDV("bench-source", srv.URL+"/src.qcow2", "1Gi", true))
	defer b.space().deleteDV("bench-source")
	return append(rows, b.uploadRow(dir, raw, proxy), b.cloneRow(dir))
}
