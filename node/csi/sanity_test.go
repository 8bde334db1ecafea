package csi

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/kubernetes-csi/csi-test/v5/pkg/sanity"
	"github.com/stretchr/testify/require"
)

// TestSanity runs the upstream csi-sanity suite against the driver served on
// a real unix socket, with two pools so the storagePool parameter matters.
func TestSanity(t *testing.T) {
	requireRoot(t)
	if f := flag.Lookup("test.count"); f != nil && f.Value.String() != "1" {
		// Ginkgo fails the whole package rather than rerun a suite.
		t.Skip("csi-sanity runs on ginkgo, which refuses go test -count other than 1")
	}
	base := shortTempDir(t)
	d, err := NewDriver(Config{
		NodeName: "sanity-node",
		Pools: map[string]string{
			"fast": filepath.Join(base, "fast"),
			"slow": filepath.Join(base, "slow"),
		},
		Version: "sanity",
	})
	require.NoError(t, err)
	socket := filepath.Join(base, "csi.sock")
	stop, err := d.Start(socket)
	require.NoError(t, err)
	t.Cleanup(stop)

	cfg := sanity.NewTestConfig()
	cfg.Address = "unix://" + socket
	cfg.TargetPath = filepath.Join(base, "target")
	cfg.StagingPath = filepath.Join(base, "staging")
	cfg.TestVolumeParameters = map[string]string{ParamStoragePool: "slow"}
	// Small enough to fit on any test machine's /tmp, since CreateVolume
	// refuses sizes beyond the pool's free space.
	cfg.TestVolumeSize = 64 << 20
	sanity.Test(t, cfg)
}
