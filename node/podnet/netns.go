package podnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Netns is a pod's network namespace, entered through a process in it.
type Netns struct {
	// Path is /proc/<pid>/ns/net of a process of the pod.
	Path string
}

// run runs a command inside the namespace.
func (n Netns) run(ctx context.Context, stdin string, name string, args ...string) (string, error) {
	full := append([]string{"--net=" + n.Path, "--", name}, args...)
	cmd := exec.CommandContext(ctx, "nsenter", full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// ip runs ip(8) in the namespace.
func (n Netns) ip(ctx context.Context, args ...string) (string, error) {
	return n.run(ctx, "", "ip", args...)
}

// sysctl sets a network sysctl of the namespace.
func (n Netns) sysctl(ctx context.Context, key, value string) error {
	_, err := n.run(ctx, "", "sysctl", "-q", "-w", key+"="+value)
	return err
}

// ErrNoSandbox says the pod's sandbox has no process yet: its network
// namespace does not exist.
var ErrNoSandbox = errors.New("the pod's sandbox is not running yet")

// PodNetns finds the network namespace of the pod with this UID among the
// processes under procRoot (/proc of the host's PID namespace): the
// kubelet puts every process of a pod in a cgroup named after its UID.
func PodNetns(procRoot, podUID string) (Netns, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return Netns{}, fmt.Errorf("listing processes: %w", err)
	}
	marks := []string{"/pod" + podUID + "/", "/pod" + strings.ReplaceAll(podUID, "-", "_") + ".slice/"}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "cgroup"))
		if err != nil {
			continue
		}
		for _, m := range marks {
			if bytes.Contains(data, []byte(m)) {
				return Netns{Path: filepath.Join(procRoot, e.Name(), "ns", "net")}, nil
			}
		}
	}
	return Netns{}, ErrNoSandbox
}
