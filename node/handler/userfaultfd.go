package handler

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
)

// userfaultfdSysctl lets unprivileged processes take their own page
// faults through userfaultfd. Post-copy needs it on both nodes: the
// target's QEMU serves the guest's faults on pages not copied yet, and
// the launchers' QEMU runs unprivileged (QEMU 7.2 has no
// /dev/userfaultfd path; the kernel's default, 0, makes QEMU refuse with
// "Postcopy is not supported").
var userfaultfdSysctl = "/proc/sys/vm/unprivileged_userfaultfd"

// allowPostCopy turns the setting on for a copy whose plan may switch to
// post-copy, and only then: a node where no migration allows post-copy
// keeps the kernel's default. Once on, it stays, as other migrations on
// the node may be relying on it.
func allowPostCopy(postCopy bool) error {
	if !postCopy {
		return nil
	}
	cur, err := os.ReadFile(userfaultfdSysctl)
	if err != nil {
		return fmt.Errorf("reading %s for post-copy: %w", userfaultfdSysctl, err)
	}
	if string(bytes.TrimSpace(cur)) == "1" {
		return nil
	}
	slog.Warn("a migration allows post-copy: letting unprivileged processes use userfaultfd on this node", "sysctl", userfaultfdSysctl)
	if err := os.WriteFile(userfaultfdSysctl, []byte("1\n"), 0o644); err != nil {
		return fmt.Errorf("enabling userfaultfd for post-copy in %s: %w", userfaultfdSysctl, err)
	}
	return nil
}
