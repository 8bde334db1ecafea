// Package procs reads /proc for the tests and benchmarks: which processes
// run, their command lines, parents, names and resident memory.
package procs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Process is one process as /proc shows it.
type Process struct {
	PID, Parent int
	// Comm is the command name, at most 15 characters.
	Comm string
}

// PIDs lists every process's ID.
func PIDs() []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// Cmdline is a process's command line, its arguments NUL-separated
// (empty when it is gone).
func Cmdline(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return string(data)
}

// Find is a process whose command line match accepts, or 0.
func Find(match func(pid int, cmdline string) bool) int {
	for _, pid := range PIDs() {
		if match(pid, Cmdline(pid)) {
			return pid
		}
	}
	return 0
}

// List reads every process.
func List() []Process {
	var out []Process
	for _, pid := range PIDs() {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The command name sits in parentheses and may hold spaces; the
		// fields resume after the last ')'.
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		out = append(out, Process{PID: pid, Parent: ppid, Comm: s[open+1 : end]})
	}
	return out
}

// Children maps each process ID to its children's.
func Children(all []Process) map[int][]int {
	out := map[int][]int{}
	for _, p := range all {
		out[p.Parent] = append(out[p.Parent], p.PID)
	}
	return out
}

// RSSKiB is a process's resident memory in KiB, 0 when it is gone.
func RSSKiB(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb
		}
	}
	return 0
}
