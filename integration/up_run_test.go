//go:build integration

package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	hcoc "github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/virtctl"
	"github.com/virtflow/virtflow/wire/launcherpod"
	"github.com/virtflow/virtflow/worker"
)

// upRun is `virtflow up` run as a user runs it, on a data directory of its
// own: a real one-node cluster whose kubelet runs every component and
// launcher as a pod.
type upRun struct {
	dataDir string
	// guest is the test guest's directory (hack/mkguest.sh).
	guest string
	args  []string
	log   *os.File
	cmd   *exec.Cmd
	// kubeconfig is the admin's; cfg, c and tc reach the cluster and its
	// Temporal server while it runs.
	kubeconfig string
	cfg        *rest.Config
	c          crclient.Client
	tc         client.Client
	// hcUID is the default HyperConverged's UID once it is Available.
	hcUID string
	// console is the web console's URL `up` printed.
	console string
}

// newUpRun prepares `virtflow up` on an empty data directory, purging what
// a killed run left. The directory is short and fixed: the kubelet's plugin
// sockets live under it.
func newUpRun(dataDir string) (*upRun, error) {
	u := &upRun{dataDir: dataDir}
	if err := u.purge(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	out, err := exec.Command("../hack/mkguest.sh").Output()
	if err != nil {
		return nil, fmt.Errorf("building the test guest: %w", err)
	}
	u.guest = strings.TrimSpace(string(out))
	var ports [4]int
	for i := range ports {
		if ports[i], err = freePorts(); err != nil {
			return nil, err
		}
	}
	u.args = []string{"up", "--data-dir", dataDir, "--test-guest", u.guest,
		"--etcd-port", strconv.Itoa(ports[0]), "--apiserver-port", strconv.Itoa(ports[1]),
		"--temporal-port", strconv.Itoa(ports[2]), "--temporal-ui-port", strconv.Itoa(ports[3])}
	u.log, err = os.CreateTemp(env.dir, "up-*.log")
	return u, err
}

// freePorts returns a port whose successor is also free.
func freePorts() (int, error) {
	for i := 0; i < 50; i++ {
		a, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := a.Addr().(*net.TCPAddr).Port
		b, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+1))
		a.Close()
		if err == nil {
			b.Close()
			return port, nil
		}
	}
	return 0, errors.New("no free pair of ports")
}

// purge removes the node (pods, VMs, host changes) and the data directory.
func (u *upRun) purge() error {
	out, err := exec.Command(env.virtflowBin, "down", "--purge", "--data-dir", u.dataDir, "--tools-dir", "../tools/k8s").CombinedOutput()
	if err != nil {
		return fmt.Errorf("virtflow down --purge: %w\n%s", err, out)
	}
	return os.RemoveAll(u.dataDir)
}

// start runs `virtflow up` until the default HyperConverged is Available
// and its install workflow completed.
func (u *upRun) start() error {
	upsBefore := u.upsSaid()
	u.cmd = exec.Command(env.virtflowBin, u.args...)
	u.cmd.Dir = ".."
	u.cmd.Stdout, u.cmd.Stderr = u.log, u.log
	if err := u.cmd.Start(); err != nil {
		return err
	}
	ep, err := u.endpoints(5 * time.Minute)
	if err != nil {
		return err
	}
	u.kubeconfig, u.console = ep.Kubeconfig, ep.Console
	if ep.ConsoleCA != "" {
		if err := trustConsole(ep.ConsoleCA); err != nil {
			return err
		}
	}
	if u.cfg, err = clientcmd.BuildConfigFromFlags("", ep.Kubeconfig); err != nil {
		return err
	}
	// Benchmarks poll VMIs every few milliseconds.
	u.cfg.QPS, u.cfg.Burst = 500, 1000
	if u.c, err = newClient(u.cfg); err != nil {
		return err
	}
	opts, err := ep.TemporalTLS().Options(ep.TemporalAddress, worker.DefaultNamespace)
	if err != nil {
		return err
	}
	if u.tc, err = client.Dial(opts); err != nil {
		return err
	}
	if err := u.waitInstalled(2 * time.Minute); err != nil {
		return err
	}
	// up says so once VMs are admitted, which a restart's stale
	// HyperConverged status does not tell.
	for deadline := time.Now().Add(3 * time.Minute); u.upsSaid() == upsBefore; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("virtflow up never said it was up:\n%s", u.logTail())
		}
	}
	return nil
}

// upsSaid counts the times up's output said it was up.
func (u *upRun) upsSaid() int {
	data, _ := os.ReadFile(u.log.Name())
	return strings.Count(string(data), "virtflow is up; press Ctrl-C to stop")
}

// endpoints waits for this run's endpoints file.
func (u *upRun) endpoints(timeout time.Duration) (platform.Endpoints, error) {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if e, err := platform.ReadEndpoints(u.dataDir); err == nil && e.PID == u.cmd.Process.Pid {
			return e, nil
		}
		if u.cmd.ProcessState != nil {
			break
		}
	}
	return platform.Endpoints{}, fmt.Errorf("virtflow up did not come up:\n%s", u.logTail())
}

// waitInstalled waits for the HyperConverged to be Available and its
// install workflow completed.
func (u *upRun) waitInstalled(timeout time.Duration) error {
	hc := &hcov1beta1.HyperConverged{}
	for deadline := time.Now().Add(timeout); !meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionAvailable); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("HyperConverged did not become Available: %+v\n%s", hc.Status.Conditions, u.logTail())
		}
		_ = u.c.Get(context.Background(), hcKey(), hc)
	}
	u.hcUID = string(hc.UID)
	desc, err := u.tc.DescribeWorkflowExecution(context.Background(), hcoc.InstallWorkflowID(u.hcUID), "")
	if err != nil {
		return err
	}
	if s := desc.WorkflowExecutionInfo.Status; s != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		return fmt.Errorf("the install workflow is %s", s)
	}
	return nil
}

// stop stops `virtflow up` with SIGINT, as Ctrl-C does; pods and VMs
// keep running.
func (u *upRun) stop() error {
	if u.tc != nil {
		u.tc.Close()
		u.tc = nil
	}
	if u.cmd == nil || u.cmd.ProcessState != nil {
		return nil
	}
	_ = u.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- u.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("virtflow up did not stop cleanly on SIGINT: %w\n%s", err, u.logTail())
		}
		return nil
	case <-time.After(time.Minute):
		_ = u.cmd.Process.Kill()
		return errors.New("virtflow up did not stop within a minute of SIGINT")
	}
}

// logTail is the end of up's output.
func (u *upRun) logTail() string {
	data, _ := os.ReadFile(u.log.Name())
	if len(data) > 20000 {
		data = data[len(data)-20000:]
	}
	return string(data)
}

// lastLines is the end of text, at most n lines.
func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// kubectl is the pinned kubectl on this cluster.
func (u *upRun) kubectl(args ...string) *exec.Cmd {
	return kubectlAt(u.dataDir, args...)
}

// namespace creates a namespace for one test; it is deleted, with what
// the test left in it, after the test.
func (u *upRun) namespace(t *testing.T) string {
	name := strings.Trim(nonName.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(name) > 50 {
		name = strings.Trim(name[:50], "-")
	}
	return u.namespaceNamed(t, name)
}

// namespaceNamed creates the named namespace for one test.
func (u *upRun) namespaceNamed(t *testing.T, name string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	require.NoError(t, u.c.Create(context.Background(), ns))
	t.Cleanup(func() { _ = u.c.Delete(context.Background(), ns) })
	return name
}

var nonName = regexp.MustCompile(`[^a-z0-9-]+`)

// virtctl runs our virtctl as the admin in namespace ns.
func (u *upRun) virtctl(ns string, args ...string) (string, error) {
	var out bytes.Buffer
	err := virtctl.Main(context.Background(), append([]string{"--kubeconfig", u.kubeconfig, "-n", ns}, args...), &out)
	return out.String(), err
}

// kubeletRoot is where the node's kubelet keeps pods' volumes.
func (u *upRun) kubeletRoot() string { return filepath.Join(u.dataDir, "node", "kubelet") }

// The real node the tests share: started by the first test that needs it
// and purged when the suite ends.
var (
	nodeOnce sync.Once
	nodeRun  *upRun
	nodeErr  error
)

// sharedNodeDir is short: plugin sockets under the kubelet's root must fit
// a unix socket path.
const sharedNodeDir = "/var/tmp/virtflow-it"

// onNode is the shared `virtflow up`, started on first use.
func onNode(t *testing.T) *upRun {
	t.Helper()
	nodeOnce.Do(func() {
		if nodeRun, nodeErr = newUpRun(sharedNodeDir); nodeErr == nil {
			nodeErr = nodeRun.start()
		}
	})
	if nodeErr != nil {
		t.Fatalf("the shared node: %v", nodeErr)
	}
	t.Cleanup(func() {
		// A short tail only: the whole output would push the failure
		// itself out of what a CI summary shows.
		if t.Failed() {
			t.Logf("virtflow up's output: %s; its end:\n%s", nodeRun.log.Name(), lastLines(nodeRun.logTail(), 8))
		}
	})
	return nodeRun
}

// stopSharedNode stops and purges the shared node, when a test started it,
// and reports whether the purge left a guest of it running.
func stopSharedNode() error {
	if nodeRun == nil {
		return nil
	}
	errs := []error{nodeRun.stop(), nodeRun.purge()}
	if qemu := qemuOf("default_upvm"); qemu != "" {
		errs = append(errs, fmt.Errorf("the purge left the VM's QEMU %s running", qemu))
	}
	return errors.Join(errs...)
}

// podSerialLog finds a VM's serial log in its launcher pod's private
// volume on the node.
func podSerialLog(t *testing.T, c crclient.Client, kubeletRoot string) func(ns, vm string) string {
	return func(ns, vm string) string {
		pods := &corev1.PodList{}
		require.NoError(t, c.List(context.Background(), pods, crclient.InNamespace(ns), crclient.MatchingLabels{"vm.kubevirt.io/name": vm}))
		require.Len(t, pods.Items, 1, "the launcher pod of %s", vm)
		return filepath.Join(launcherpod.HostEmptyDir(kubeletRoot, string(pods.Items[0].UID), launcherpod.PrivateVolume), "serial.log")
	}
}
