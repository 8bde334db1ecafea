package storage

import (
	"os"
	"path/filepath"
	"syscall"
)

// CacheModeFor picks qemu-img's destination cache mode for a volume in
// dir: "none" (direct I/O, no page-cache churn, fastest for large writes)
// where the filesystem supports O_DIRECT, else "writeback" (tmpfs, some
// network filesystems).
func CacheModeFor(dir string) string {
	probe := filepath.Join(dir, ".virtflow-odirect-probe")
	f, err := os.OpenFile(probe, os.O_CREATE|os.O_WRONLY|syscall.O_DIRECT, 0o600)
	if err != nil {
		// EINVAL is the filesystem refusing O_DIRECT; any other error is
		// left for the write itself to report, with the safe mode.
		return "writeback"
	}
	f.Close()
	_ = os.Remove(probe)
	return "none"
}
