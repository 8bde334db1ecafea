package evacuation

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Upstream's limits when the KubeVirt CR sets none.
const (
	defaultParallelPerCluster = 5
	defaultOutboundPerNode    = 2
)

// Upstream's migration backoff after failed evacuation attempts: 20s,
// doubled for every failure since the last success.
const firstBackoff = 20 * time.Second

// clusterConfig is what an evacuation follows from the KubeVirt CR.
type clusterConfig struct {
	strategy   *kubevirtv1.EvictionStrategy
	perCluster int
	perNode    int
	// drainTaint is the key of the NoSchedule taint that has a node's
	// VMIs leave it, as an eviction of each would.
	drainTaint string
}

// configOf reads the KubeVirt CR (nil when there is none).
func configOf(kv *kubevirtv1.KubeVirt) clusterConfig {
	cfg := clusterConfig{strategy: ClusterStrategy(kv), perCluster: defaultParallelPerCluster, perNode: defaultOutboundPerNode,
		drainTaint: DrainTaintKey(kv)}
	if kv == nil || kv.Spec.Configuration.MigrationConfiguration == nil {
		return cfg
	}
	m := kv.Spec.Configuration.MigrationConfiguration
	if m.ParallelMigrationsPerCluster != nil {
		cfg.perCluster = int(*m.ParallelMigrationsPerCluster)
	}
	if m.ParallelOutboundMigrationsPerNode != nil {
		cfg.perNode = int(*m.ParallelOutboundMigrationsPerNode)
	}
	return cfg
}

// onNode are all the node's VMIs that are not moving now: what a drain
// taint evacuates.
func onNode(node string, vmis []kubevirtv1.VirtualMachineInstance, now time.Time) []*kubevirtv1.VirtualMachineInstance {
	var out []*kubevirtv1.VirtualMachineInstance
	for i := range vmis {
		if v := &vmis[i]; v.Status.NodeName == node && !migrating(v, now) {
			out = append(out, v)
		}
	}
	return out
}

// marked are the node's VMIs an eviction asked to leave it that have not
// left and are not moving now.
func marked(node string, vmis []kubevirtv1.VirtualMachineInstance, now time.Time) []*kubevirtv1.VirtualMachineInstance {
	var out []*kubevirtv1.VirtualMachineInstance
	for i := range vmis {
		v := &vmis[i]
		if v.Status.EvacuationNodeName == node && v.Status.NodeName == node && !migrating(v, now) {
			out = append(out, v)
		}
	}
	return out
}

// migrating is upstream's test on the VMI's own record: a migration has
// started and not ended.
func migrating(v *kubevirtv1.VirtualMachineInstance, now time.Time) bool {
	st := v.Status.MigrationState
	if st == nil || st.StartTimestamp == nil || st.StartTimestamp.After(now) {
		return false
	}
	return st.EndTimestamp == nil || st.EndTimestamp.After(now)
}

// split sorts the marked VMIs as upstream: those to move now, and those
// whose strategy wants a move they cannot make (LiveMigratable is not
// True). VMIs shutting down, not moved on eviction, with a migration in
// flight or still with a previous migration's second pod are left.
func split(vmis []*kubevirtv1.VirtualMachineInstance, cfg clusterConfig, w *world) (movable, stuck []*kubevirtv1.VirtualMachineInstance) {
	for _, v := range vmis {
		switch {
		case v.IsFinal() || v.DeletionTimestamp != nil:
		case !MigratableOnEviction(v, cfg.strategy):
		case !v.IsMigratable():
			stuck = append(stuck, v)
		case w.inFlight(v.Namespace, v.Name), w.activePods[v.UID] > 1:
		default:
			movable = append(movable, v)
		}
	}
	return movable, stuck
}

// world is what the cluster holds beyond the node's VMIs: every
// migration, by VMI, and the launcher pods alive, by VMI.
type world struct {
	migrations map[string][]kubevirtv1.VirtualMachineInstanceMigration
	activePods map[types.UID]int
}

// inFlight tells whether a migration of the VMI has not finished.
func (w *world) inFlight(ns, vmi string) bool {
	for _, m := range w.migrations[ns+"/"+vmi] {
		if !m.IsFinal() {
			return true
		}
	}
	return false
}

// free is how many more migrations may start from the node: within the
// cluster's and the node's limits. Unlike upstream, migrations not
// started yet count, since virtflow's migration controller starts every
// migration at once rather than queueing those beyond the limits.
func free(node string, cfg clusterConfig, vmisOnNode []kubevirtv1.VirtualMachineInstance, w *world) int {
	onNode := map[string]bool{}
	for _, v := range vmisOnNode {
		onNode[v.Namespace+"/"+v.Name] = true
	}
	total, fromNode := 0, 0
	for key, ms := range w.migrations {
		for _, m := range ms {
			if m.IsFinal() {
				continue
			}
			total++
			if onNode[key] {
				fromNode++
			}
		}
	}
	return min(cfg.perCluster-total, cfg.perNode-fromNode)
}

// backoff is how long the VMI must still wait before another evacuation
// attempt, as upstream's: 20s after the last failure, doubled for every
// failure since the last success, counted from that failure.
func backoff(ms []kubevirtv1.VirtualMachineInstanceMigration, now time.Time) time.Duration {
	var last time.Time
	failures := 0
	for _, m := range newestFirst(ms) {
		if m.Status.Phase == kubevirtv1.MigrationSucceeded {
			break
		}
		if m.Status.Phase != kubevirtv1.MigrationFailed {
			continue
		}
		if failures == 0 {
			last = failedAt(&m)
		}
		failures++
	}
	if failures == 0 {
		return 0
	}
	wait := firstBackoff << min(failures-1, 10)
	return max(0, last.Add(wait).Sub(now))
}

// failedAt is when a migration entered Failed, its creation if it never
// recorded that.
func failedAt(m *kubevirtv1.VirtualMachineInstanceMigration) time.Time {
	for _, t := range m.Status.PhaseTransitionTimestamps {
		if t.Phase == kubevirtv1.MigrationFailed {
			return t.PhaseTransitionTimestamp.Time
		}
	}
	return m.CreationTimestamp.Time
}

// podAlive is upstream's active pod: not finished.
func podAlive(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// newestFirst orders a VMI's migrations by creation, newest first.
func newestFirst(ms []kubevirtv1.VirtualMachineInstanceMigration) []kubevirtv1.VirtualMachineInstanceMigration {
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b kubevirtv1.VirtualMachineInstanceMigration) int {
		return b.CreationTimestamp.Compare(a.CreationTimestamp.Time)
	})
	return out
}
