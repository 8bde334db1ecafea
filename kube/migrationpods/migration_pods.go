// Package migrationpods reads the launcher pods a migration's step names
// and acts on them only when they are what the step was told: a launcher
// of that VMI, the migration's own target or not a target at all. The
// control steps and the node steps share it, so both refuse the same
// mismatches.
package migrationpods

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
)

// Mismatch is a pod that is not what the step's input says it is; no
// retry changes it.
type Mismatch struct{ msg string }

// Error is the mismatch, said plainly.
func (m *Mismatch) Error() string { return m.msg }

func mismatch(format string, args ...any) error { return &Mismatch{msg: fmt.Sprintf(format, args...)} }

// Source reads the source pod the request names: a launcher of the VMI
// that is not this migration's target.
func Source(ctx context.Context, c client.Reader, req virt.NodeRequest) (*corev1.Pod, error) {
	pod, err := vmiPod(ctx, c, req, req.Plan.Source.Pod)
	if err == nil && pod.Labels[kubevirtv1.MigrationJobLabel] == req.Migration.UID {
		err = mismatch("pod %s is the target of migration %s, not its source", pod.Name, req.Migration.Name)
	}
	return pod, err
}

// Target reads the target pod the request names: a launcher of the VMI
// made for this migration.
func Target(ctx context.Context, c client.Reader, req virt.NodeRequest) (*corev1.Pod, error) {
	pod, err := vmiPod(ctx, c, req, req.Target.Pod)
	if err == nil && pod.Labels[kubevirtv1.MigrationJobLabel] != req.Migration.UID {
		err = mismatch("pod %s is not the target of migration %s", pod.Name, req.Migration.Name)
	}
	return pod, err
}

// OnNode checks that pod runs on node: a node step acts only on its own
// node's pods.
func OnNode(pod *corev1.Pod, node string) error {
	if pod.Spec.NodeName != node {
		return mismatch("pod %s runs on node %q, not on %s", pod.Name, pod.Spec.NodeName, node)
	}
	return nil
}

// vmiPod reads a pod of the VMI's namespace, refusing one that is not a
// launcher of that VMI.
func vmiPod(ctx context.Context, c client.Reader, req virt.NodeRequest, name string) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: req.VMI.Namespace, Name: name}, pod); err != nil {
		return nil, fmt.Errorf("reading pod %s: %w", name, err)
	}
	if pod.Labels[kubevirtv1.CreatedByLabel] != req.VMI.UID {
		return nil, mismatch("pod %s is not a launcher of VMI %s", name, req.VMI.Name)
	}
	return pod, nil
}
