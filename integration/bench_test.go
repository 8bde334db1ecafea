//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/node/libvirt/domain"
)

// benchRow is one line of the table: our path against a baseline measured
// in the same run on the same machine.
type benchRow struct {
	name           string
	ours, baseline time.Duration
	note           string
}

// TestBench measures the VM paths of ARCHITECTURE.md's benchmark list and
// prints one table of ratios. It asserts only that every VM got there;
// numbers are reported, never compared with a fixed limit.
func TestBench(t *testing.T) {
	qemuNode := nodeConfig(t)
	simNode := simulatedNode(t, "virtflow-sim-1")
	svc := services(t, ServicesConfig{SkipHCO: true, SkipComponentOperators: true,
		Nodes: []handler.Config{qemuNode, simNode}})
	bench := &bencher{t: t, client: fastClient(t)}
	runs := envInt("BENCH_RUNS", 3)
	var rows []benchRow
	rows = append(rows, bench.singleVM(qemuNode, runs)...)
	rows = append(rows, bench.massCreate(simNode, envInt("BENCH_SIMULATED_VMS", 100)))
	rows = append(rows, bench.massCreate(qemuNode, envInt("BENCH_QEMU_VMS", 10)))
	rows = append(rows, bench.storageRows(svc.UploadProxyURL())...)
	printTable(rows)
}

type bencher struct {
	t      *testing.T
	client crclient.Client
	// serialLog finds a VM's serial console log; the launcher directory of
	// a simulated node's agent when nil.
	serialLog func(ns, vm string) string
	// bare is where baselines run their domains; the measured node when nil.
	bare *handler.Config
}

// fastClient lifts client-go's default 5 QPS, which would otherwise be
// what a mass create measures.
func fastClient(t *testing.T) crclient.Client {
	cfg := env.cp.RESTConfig()
	cfg.QPS, cfg.Burst = 500, 1000
	c, err := newClient(cfg)
	require.NoError(t, err)
	return c
}

// simulatedNode is a node agent whose launchers run domains on libvirt's
// test driver, with room for more VMs than this host's qemu could carry.
func simulatedNode(t *testing.T, name string) handler.Config {
	n := nodeConfig(t)
	n.NodeName, n.DomainType = name, domain.Simulated
	n.Dir = filepath.Join(env.dir, "nodes", name)
	require.NoError(t, os.MkdirAll(n.Dir, 0o755))
	n.Capacity = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("256"), corev1.ResourceMemory: resource.MustParse("1Ti"),
		corev1.ResourcePods: resource.MustParse("1000"),
	}
	return n
}

// benchVM is the test guest pinned to one node.
func benchVM(ns, name, node string) *kubevirtv1.VirtualMachine {
	vm := testGuestVM(name, kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	vm.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
	// An agent without a kubelet runs launchers outside any pod: there is
	// no pod network to connect.
	off := false
	vm.Spec.Template.Spec.Domain.Devices.AutoattachPodInterface = &off
	return vm
}

func (b *bencher) namespace(name string) string {
	// An in-process virt-controller creates launchers as the admin, not as
	// kubevirt-controller, the one creator Pod Security exempts.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pod-security.kubernetes.io/enforce": "privileged"}}}
	if err := b.client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		b.t.Fatalf("creating namespace %s: %v", name, err)
	}
	return name
}

// runningTimes polls the namespace's VMIs and records when each VM's
// instance was first seen Running, until want are or the timeout passes.
func (b *bencher) runningTimes(ns string, want int, timeout time.Duration) map[string]time.Time {
	seen := map[string]time.Time{}
	ended := map[types.UID]bool{}
	deadline := time.Now().Add(timeout)
	for len(seen) < want && time.Now().Before(deadline) {
		list := &kubevirtv1.VirtualMachineInstanceList{}
		if err := b.client.List(context.Background(), list, crclient.InNamespace(ns)); err == nil {
			now := time.Now()
			for _, v := range list.Items {
				if _, ok := seen[v.Name]; !ok && v.Status.Phase == kubevirtv1.Running {
					seen[v.Name] = now
				}
				if v.IsFinal() && !ended[v.UID] {
					ended[v.UID] = true
					b.t.Logf("VMI %s ended %s: %+v", v.Name, v.Status.Phase, v.Status.Conditions)
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(seen) < want {
		b.explain(ns)
	}
	require.Len(b.t, seen, want, "not every VM reached Running in %s", timeout)
	return seen
}

// explain logs the namespace's events and VMI states behind a failure.
func (b *bencher) explain(ns string) {
	events, vmis := &corev1.EventList{}, &kubevirtv1.VirtualMachineInstanceList{}
	_ = b.client.List(context.Background(), events, crclient.InNamespace(ns))
	_ = b.client.List(context.Background(), vmis, crclient.InNamespace(ns))
	for _, e := range events.Items {
		b.t.Logf("event %s %s: %s", e.InvolvedObject.Name, e.Reason, e.Message)
	}
	for _, v := range vmis.Items {
		b.t.Logf("vmi %s phase %s conditions %+v", v.Name, v.Status.Phase, v.Status.Conditions)
	}
}

// cleanup deletes every VM of the namespace and waits for their pods, so
// the next measurement starts on an idle node.
func (b *bencher) cleanup(ns string) {
	ctx := context.Background()
	require.NoError(b.t, b.client.DeleteAllOf(ctx, &kubevirtv1.VirtualMachine{}, crclient.InNamespace(ns)))
	require.Eventually(b.t, func() bool {
		pods, vmis := &corev1.PodList{}, &kubevirtv1.VirtualMachineInstanceList{}
		_ = b.client.List(ctx, pods, crclient.InNamespace(ns))
		_ = b.client.List(ctx, vmis, crclient.InNamespace(ns))
		return len(pods.Items) == 0 && len(vmis.Items) == 0
	}, 5*time.Minute, 200*time.Millisecond, "VMs of %s were not cleaned up", ns)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s))*p+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func printTable(rows []benchRow) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-58s %12s %12s %9s  %s\n", "path", "virtflow", "baseline", "ratio", "notes")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-58s %12s %12s %8.2fx  %s\n", r.name, shown(r.ours), r.baseline.Round(time.Microsecond),
			float64(r.ours)/float64(r.baseline), r.note)
	}
	fmt.Print(b.String())
}

// shown rounds a measurement to what it can tell: milliseconds, or
// microseconds below a tenth of a second.
func shown(d time.Duration) time.Duration {
	if d < 100*time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

// concurrently runs f for 0..n-1, at most limit at a time.
func concurrently(n, limit int, f func(i int)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() { defer wg.Done(); defer func() { <-sem }(); f(i) }()
	}
	wg.Wait()
}
