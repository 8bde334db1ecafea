package csi

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// mountInfoPath lists the mounts of this process's mount namespace, which is
// the namespace our bind mounts are made in.
const mountInfoPath = "/proc/self/mountinfo"

// mountEntry is the part of a mountinfo line we need.
type mountEntry struct {
	mountPoint string
	readOnly   bool
}

// findMount returns the topmost mount at exactly path (later mountinfo lines
// are stacked on earlier ones). path must already be canonical.
func findMount(path string) (entry mountEntry, found bool, err error) {
	mounts, err := readMounts()
	for _, e := range mounts {
		if e.mountPoint == path {
			entry, found = e, true
		}
	}
	return entry, found, err
}

// readMounts lists the mount table in order.
func readMounts() ([]mountEntry, error) {
	f, err := os.Open(mountInfoPath)
	if err != nil {
		return nil, fmt.Errorf("reading mount table: %w", err)
	}
	defer f.Close()
	var out []mountEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		e, err := parseMountInfoLine(sc.Text())
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading mount table: %w", err)
	}
	return out, nil
}

// publishedElsewhere tells whether the volume directory src is bind-mounted
// at a mount point other than target.
func publishedElsewhere(src, target string) (bool, error) {
	mounts, err := readMounts()
	if err != nil {
		return false, err
	}
	for _, e := range mounts {
		if e.mountPoint == target || e.mountPoint == src {
			continue
		}
		if same, err := sameFile(e.mountPoint, src); err == nil && same {
			return true, nil
		}
	}
	return false, nil
}

// parseMountInfoLine reads "id parent major:minor root mountpoint options ...";
// see proc(5).
func parseMountInfoLine(line string) (mountEntry, error) {
	fields := strings.Fields(line)
	if len(fields) < 6 {
		return mountEntry{}, fmt.Errorf("malformed mountinfo line %q", line)
	}
	mp, err := unescapeMountPath(fields[4])
	if err != nil {
		return mountEntry{}, fmt.Errorf("malformed mount point in mountinfo line %q: %w", line, err)
	}
	readOnly := false
	for _, opt := range strings.Split(fields[5], ",") {
		if opt == "ro" {
			readOnly = true
		}
	}
	return mountEntry{mountPoint: mp, readOnly: readOnly}, nil
}

// unescapeMountPath undoes the kernel's octal escaping of space, tab,
// newline and backslash in mountinfo paths.
func unescapeMountPath(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+4 > len(s) {
			return "", fmt.Errorf("truncated escape in %q", s)
		}
		v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q: %w", s, err)
		}
		b.WriteByte(byte(v))
		i += 3
	}
	return b.String(), nil
}

// lockedFlags maps statfs flags to the mount flags a read-only remount must
// repeat: the kernel refuses (EPERM) to drop flags such as nosuid that were
// locked on the source mount, e.g. inside a container.
var lockedFlags = []struct{ st, ms uintptr }{
	{unix.ST_NOSUID, unix.MS_NOSUID},
	{unix.ST_NODEV, unix.MS_NODEV},
	{unix.ST_NOEXEC, unix.MS_NOEXEC},
	{unix.ST_NOATIME, unix.MS_NOATIME},
	{unix.ST_NODIRATIME, unix.MS_NODIRATIME},
	{unix.ST_RELATIME, unix.MS_RELATIME},
}

// bindMount mounts src at target. A bind mount ignores MS_RDONLY on creation,
// so read-only needs a second, remounting call.
func bindMount(src, target string, readOnly bool) error {
	if err := unix.Mount(src, target, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mounting %s at %s: %w", src, target, err)
	}
	if !readOnly {
		return nil
	}
	var st unix.Statfs_t
	if err := unix.Statfs(target, &st); err != nil {
		return errors.Join(fmt.Errorf("statfs %s: %w", target, err), unmount(target))
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range lockedFlags {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("", target, "", flags, ""); err != nil {
		// Never leave a writable mount behind when read-only was asked for.
		return errors.Join(fmt.Errorf("remounting %s read-only: %w", target, err), unmount(target))
	}
	return nil
}

func unmount(target string) error {
	if err := unix.Unmount(target, 0); err != nil {
		return fmt.Errorf("unmounting %s: %w", target, err)
	}
	return nil
}
