package kubenode

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// cniNetwork is the CNI network's name; the bridge plugin tags the NAT
// chains it makes for each pod with it.
const cniNetwork = "virtflow"

// cniChain matches a rule of a per-pod masquerade chain of our network in
// iptables-save's output.
var cniChain = regexp.MustCompile(`^-A (CNI-[0-9a-f]+) .*name: \\"` + cniNetwork + `\\"`)

// removeCNIChains removes the per-pod NAT chains of the node's network
// that a pod's teardown left behind (a teardown cut short by a kill, or
// two of them racing on one pod), with the jumps to them.
func removeCNIChains(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "iptables-save", "-t", "nat").Output()
	if err != nil {
		return fmt.Errorf("listing NAT rules: %w", err)
	}
	chains := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if m := cniChain.FindStringSubmatch(line); m != nil {
			chains[m[1]] = true
		}
	}
	var errs []error
	for chain := range chains {
		errs = append(errs, deleteJumps(ctx, "POSTROUTING", chain))
		for _, op := range []string{"-F", "-X"} {
			if out, err := exec.CommandContext(ctx, "iptables", "-t", "nat", op, chain).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("iptables -t nat %s %s: %w: %s", op, chain, err, out))
			}
		}
	}
	return errors.Join(errs...)
}

// deleteJumps deletes the rules of a NAT chain that jump to target, last
// first so that the numbers stay right.
func deleteJumps(ctx context.Context, from, target string) error {
	out, err := exec.CommandContext(ctx, "iptables", "-t", "nat", "-L", from, "-n", "--line-numbers").Output()
	if err != nil {
		return fmt.Errorf("listing %s: %w", from, err)
	}
	var numbers []int
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && f[1] == target {
			if n, err := strconv.Atoi(f[0]); err == nil {
				numbers = append(numbers, n)
			}
		}
	}
	for i := len(numbers) - 1; i >= 0; i-- {
		if out, err := exec.CommandContext(ctx, "iptables", "-t", "nat", "-D", from, strconv.Itoa(numbers[i])).CombinedOutput(); err != nil {
			return fmt.Errorf("deleting rule %d of %s: %w: %s", numbers[i], from, err, out)
		}
	}
	return nil
}
