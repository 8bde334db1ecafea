package migrationproxy

import (
	"fmt"
	"path/filepath"
)

// The streams of a migration, named by the launcher pod's port upstream
// gives them: 0 is the target's libvirt daemon.
const (
	// LibvirtStream is the source libvirt's connection to the target's.
	LibvirtStream = 0
	// MemoryStream is QEMU's live memory stream
	// (upstream's LibvirtDirectMigrationPort).
	MemoryStream = 49152
	// BlockStream carries local disks in a block migration
	// (upstream's LibvirtBlockMigrationPort).
	BlockStream = 49153
)

// SocketPath is where stream's unix socket of the migration of the VMI
// with that UID lives under dir (the launcher's migration proxy
// directory), upstream's `<uid>[-<port>]-source.sock`.
func SocketPath(dir, vmiUID string, stream int) string {
	if stream == LibvirtStream {
		return filepath.Join(dir, vmiUID+"-source.sock")
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%d-source.sock", vmiUID, stream))
}
