package virt

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/kube/migrationpods"
)

// A step acts on pods its input names; each is read back from the cluster
// and acted on only if it is what the input says it is.

// migration reads the migration the request names: the same object (UID)
// and the same VMI, or the step refuses.
func (a *Activities) migration(ctx context.Context, req virt.NodeRequest) (*kubevirtv1.VirtualMachineInstanceMigration, error) {
	mig := &kubevirtv1.VirtualMachineInstanceMigration{}
	if err := a.Client.Get(ctx, client.ObjectKey{Namespace: req.Migration.Namespace, Name: req.Migration.Name}, mig); err != nil {
		return nil, fmt.Errorf("reading migration %s: %w", req.Migration.Name, err)
	}
	if string(mig.UID) != req.Migration.UID || mig.Namespace != req.VMI.Namespace || mig.Spec.VMIName != req.VMI.Name {
		return nil, refused(fmt.Sprintf("migration %s/%s is not the migration of VMI %s this step was given", mig.Namespace, mig.Name, req.VMI.Name))
	}
	return mig, nil
}

// sourcePodOf reads the source pod the request names: a launcher of the
// VMI that is not this migration's target.
func (a *Activities) sourcePodOf(ctx context.Context, req virt.NodeRequest) (*corev1.Pod, error) {
	return refusedOnMismatch(migrationpods.Source(ctx, a.Client, req))
}

// targetPodOf reads the target pod the request names: a launcher of the
// VMI made for this migration.
func (a *Activities) targetPodOf(ctx context.Context, req virt.NodeRequest) (*corev1.Pod, error) {
	return refusedOnMismatch(migrationpods.Target(ctx, a.Client, req))
}

// refusedOnMismatch makes a pod that is not what the input says a refusal
// no retry repeats.
func refusedOnMismatch(pod *corev1.Pod, err error) (*corev1.Pod, error) {
	var m *migrationpods.Mismatch
	if errors.As(err, &m) {
		return nil, refused(m.Error())
	}
	return pod, err
}

// deleteChecked deletes the pod read, only if it is still that pod.
func (a *Activities) deleteChecked(ctx context.Context, pod *corev1.Pod) error {
	err := a.Client.Delete(ctx, pod, client.Preconditions{UID: &pod.UID})
	if client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting pod %s: %w", pod.Name, err)
	}
	return nil
}

// gone tells a pod that no longer exists, which a removal takes as done.
func gone(err error) bool { return apierrors.IsNotFound(err) }
