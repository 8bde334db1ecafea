//go:build integration

// Package integration runs virtflow against a real kube-apiserver and etcd
// (built from the pinned upstream modules), a real Temporal server and, in
// later suites, real libvirt and qemu.
package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"k8s.io/client-go/rest"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/embedded/temporal"
	"github.com/virtflow/virtflow/integration/procs"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/worker"
)

// stack is the shared real control plane and Temporal server.
type stack struct {
	cp       *controlplane.ControlPlane
	temporal *temporal.Server
	admin    crclient.Client
	tc       client.Client
	// virtflowBin is a built virtflow binary, for out-of-process workers.
	virtflowBin string
	// kubeBinDir holds the cached Kubernetes binaries (kubectl among them).
	kubeBinDir string
	dir        string
}

var env *stack

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration setup:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "virtflow-integration-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	s, err := startStack(ctx, dir)
	if s != nil {
		defer s.stop()
	}
	if err != nil {
		return 0, err
	}
	env = s
	code := m.Run()
	if err := stopSharedNode(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the shared node:", err)
		code = 1
	}
	return code, nil
}

func startStack(ctx context.Context, dir string) (*stack, error) {
	binDir, err := binaries.Ensure(ctx, "../tools/k8s", binaries.DefaultCacheRoot(), func(s string) { fmt.Println(s) })
	if err != nil {
		return nil, err
	}
	s := &stack{dir: dir, kubeBinDir: binDir}
	if s.cp, err = controlplane.Start(ctx, controlplane.Config{DataDir: filepath.Join(dir, "kubernetes"), BinDir: binDir}); err != nil {
		return s, err
	}
	if s.temporal, err = temporal.Start(temporal.Config{UIPort: -1, Namespaces: []string{worker.DefaultNamespace}, LogFile: filepath.Join(dir, "temporal.log"),
		PKIDir: filepath.Join(dir, "temporal-pki")}); err != nil {
		return s, err
	}
	if err := s.temporal.WaitReady(ctx, worker.DefaultNamespace); err != nil {
		return s, err
	}
	if err := platform.InstallManifests(ctx, s.cp.RESTConfig()); err != nil {
		return s, err
	}
	if s.admin, err = newClient(s.cp.RESTConfig()); err != nil {
		return s, err
	}
	opts, err := s.temporal.AdminTLS().Options(s.temporal.FrontendAddress(), worker.DefaultNamespace)
	if err != nil {
		return s, err
	}
	if s.tc, err = client.Dial(opts); err != nil {
		return s, err
	}
	s.virtflowBin = filepath.Join(dir, "virtflow")
	ldflags, err := exec.CommandContext(ctx, "../hack/ldflags.sh").Output()
	if err != nil {
		return s, fmt.Errorf("stamping the version: %w", err)
	}
	build := exec.CommandContext(ctx, "go", "build", "-ldflags", strings.TrimSpace(string(ldflags)), "-o", dir+"/", "../cmd/virtflow", "../cmd/virt-launcher", "../cmd/pause")
	if out, err := build.CombinedOutput(); err != nil {
		return s, fmt.Errorf("building virtflow: %w\n%s", err, out)
	}
	// The Tekton tasks' step programs, static for their own images.
	tasks := exec.CommandContext(ctx, "go", "build", "-ldflags", strings.TrimSpace(string(ldflags)), "-o", dir+"/", "../cmd/virtflow-tasks")
	tasks.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := tasks.CombinedOutput(); err != nil {
		return s, fmt.Errorf("building virtflow-tasks: %w\n%s", err, out)
	}
	return s, nil
}

func (s *stack) stop() {
	killLeftovers(s.dir)
	if s.tc != nil {
		s.tc.Close()
	}
	if s.temporal != nil {
		_ = s.temporal.Stop()
	}
	if s.cp != nil {
		_ = s.cp.Stop()
	}
}

func newClient(cfg *rest.Config) (crclient.Client, error) {
	scheme, err := kubescheme.New()
	if err != nil {
		return nil, err
	}
	return crclient.New(cfg, crclient.Options{Scheme: scheme})
}

// logFile collects a component's log outside the test's own output, which
// must not be written after the test ends; its path is printed on failure.
func logFile(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.CreateTemp(env.dir, t.Name()+"-"+name+"-*.log")
	if err != nil {
		t.Fatalf("creating log file: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			data, _ := os.ReadFile(f.Name())
			if len(data) > 20000 {
				data = data[len(data)-20000:]
			}
			t.Logf("%s log (tail):\n%s", name, data)
		}
	})
	return f
}

// killLeftovers ends launchers (and their libvirtd and qemu) that a failed
// test left running: they outlive the node agent by design, but must not
// outlive the suite and disturb the next run.
func killLeftovers(dir string) {
	for _, pid := range procs.PIDs() {
		if pid != os.Getpid() && strings.Contains(procs.Cmdline(pid), dir) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

const testNode = "it-node-1"

func nodeConfig(t *testing.T) handler.Config {
	dir := filepath.Join(env.dir, "nodes", testNode)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, chmodTree(env.dir))
	return handler.Config{
		NodeName: testNode, NodeIP: "127.0.0.1", Dir: dir, ImageStore: imageStore(t),
		UID: 65534, GID: 65534, DomainType: domain.TCG,
		LauncherCommand: []string{filepath.Join(env.dir, "virt-launcher")},
	}
}
