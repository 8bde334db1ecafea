package kubenode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// hostRecord is what the host looked like before this node first started,
// kept in the data directory so that a node resumed after a crash still
// knows what to put back.
type hostRecord struct {
	// Sysctls are the kernel settings the kubelet changes.
	Sysctls map[string]string `json:"sysctls"`
	// NftTables are the nftables tables that existed ("family name").
	NftTables []string `json:"nftTables"`
	// Absent are the fixed paths that did not exist.
	Absent []string `json:"absent,omitempty"`
}

// fixedPaths are written by containerd, runc, the CNI plugins and the
// kubelet whatever their configured directories.
var fixedPaths = []string{"/run/containerd", "/var/lib/kubelet", "/var/lib/cni", "/var/log/containers", "/var/log/pods"}

// kubeletSettings are the sysctls the kubelet sets at start; Stop puts
// them back.
var kubeletSettings = []string{"vm/overcommit_memory", "kernel/panic", "kernel/panic_on_oops"}

// kernelSettings are what the record keeps: the kubelet's, IP
// forwarding, which the CNI bridge plugin turns on for the first pod, and
// unprivileged userfaultfd, which the node's agent turns on for a
// migration that allows post-copy.
var kernelSettings = append(slices.Clone(kubeletSettings), forwarding, userfaultfd)

// userfaultfd is left as the node's agent set it by Stop, as running
// guests may be mid post-copy; Purge puts it back.
const userfaultfd = "vm/unprivileged_userfaultfd"

// recordHost writes the record on the first start and loads it on later
// ones.
func (n *Node) recordHost(ctx context.Context) error {
	file := n.hostPath("host-before.json")
	if data, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(data, &n.host); err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
		return nil
	}
	n.host = hostRecord{Sysctls: map[string]string{}}
	for _, key := range kernelSettings {
		data, err := os.ReadFile(filepath.Join("/proc/sys", key))
		if err != nil {
			return fmt.Errorf("reading %s: %w", key, err)
		}
		n.host.Sysctls[key] = strings.TrimSpace(string(data))
	}
	tables, err := nftTables(ctx)
	if err != nil {
		return err
	}
	n.host.NftTables = tables
	for _, p := range fixedPaths {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			n.host.Absent = append(n.host.Absent, p)
		}
	}
	data, err := json.MarshalIndent(n.host, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding host record: %w", err)
	}
	return writeFile(file, data)
}

// forwarding is left on by Stop: pods that outlive the node's processes
// still route through the bridge; Purge puts it back.
const forwarding = "net/ipv4/ip_forward"

// restoreSysctls puts back the recorded values of keys.
func (n *Node) restoreSysctls(keys ...string) error {
	for _, key := range keys {
		value, ok := n.host.Sysctls[key]
		if !ok {
			continue
		}
		if err := os.WriteFile(filepath.Join("/proc/sys", key), []byte(value), 0o644); err != nil {
			return fmt.Errorf("restoring %s: %w", key, err)
		}
	}
	return nil
}

// removeNewEmptyTables deletes the nftables tables that appeared since the
// record (iptables-nft creates them for the kubelet's and the CNI plugins'
// rules) and hold no rule any more.
func (n *Node) removeNewEmptyTables(ctx context.Context) error {
	tables, err := nftTables(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, t := range tables {
		if slices.Contains(n.host.NftTables, t) {
			continue
		}
		family, name, _ := strings.Cut(t, " ")
		out, err := exec.CommandContext(ctx, "nft", "list", "table", family, name).Output()
		if err != nil || !ruleless(string(out)) {
			continue
		}
		if out, err := exec.CommandContext(ctx, "nft", "delete", "table", family, name).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("deleting table %s: %w: %s", t, err, out))
		}
	}
	return errors.Join(errs...)
}

func nftTables(ctx context.Context) ([]string, error) {
	out, err := exec.CommandContext(ctx, "nft", "list", "tables").Output()
	if err != nil {
		return nil, fmt.Errorf("listing nftables tables: %w", err)
	}
	var tables []string
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "table "); ok {
			tables = append(tables, rest)
		}
	}
	return tables, nil
}

// ruleless reports whether a listed table holds chains and sets but no
// rule.
func ruleless(listing string) bool {
	for _, line := range strings.Split(listing, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", line == "}", strings.HasPrefix(line, "table "), strings.HasPrefix(line, "chain "),
			strings.HasPrefix(line, "type "), strings.HasPrefix(line, "policy "):
		default:
			return false
		}
	}
	return true
}

// removeFixedPaths removes the fixed paths that were absent before.
func (n *Node) removeFixedPaths() error {
	var errs []error
	for _, p := range n.host.Absent {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("removing %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}
