package virt

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
)

// HandOver makes the target the VMI's node once the guest runs there:
// status.nodeName and the node label move, migrationState says completed,
// and the source pod, whose domain left, goes. Repeated, it changes
// nothing more.
func (a *Activities) HandOver(ctx context.Context, req virt.NodeRequest) error {
	vmi, err := a.vmi(ctx, req.VMI)
	if err != nil {
		return err
	}
	if st := vmi.Status.MigrationState; st == nil || string(st.MigrationUID) != req.Migration.UID {
		return refused(fmt.Sprintf("VMI %s records no migration %s", vmi.Name, req.Migration.UID))
	}
	if !vmi.Status.MigrationState.Completed {
		before := vmi.DeepCopy()
		now := metav1.Now()
		st := vmi.Status.MigrationState
		st.Completed, st.EndTimestamp, st.TargetNode, st.TargetPod = true, &now, req.Target.Node, req.Target.Pod
		st.TargetNodeAddress, st.TargetDirectMigrationNodePorts = req.Endpoint.Address, req.Endpoint.Ports
		vmi.Status.NodeName = req.Target.Node
		if err := a.Client.Status().Patch(ctx, vmi, client.MergeFrom(before)); err != nil {
			return fmt.Errorf("handing VMI %s to %s: %w", vmi.Name, req.Target.Node, err)
		}
	}
	if vmi.Labels[kubevirtv1.NodeNameLabel] != req.Target.Node {
		before := vmi.DeepCopy()
		if vmi.Labels == nil {
			vmi.Labels = map[string]string{}
		}
		vmi.Labels[kubevirtv1.NodeNameLabel] = req.Target.Node
		if err := a.Client.Patch(ctx, vmi, client.MergeFrom(before)); err != nil {
			return fmt.Errorf("labelling VMI %s with its node: %w", vmi.Name, err)
		}
	}
	return a.deletePod(ctx, req.VMI.Namespace, req.Plan.Source.Pod)
}

// RemoveTarget removes the target pod of a migration that did not move
// the guest.
func (a *Activities) RemoveTarget(ctx context.Context, req virt.NodeRequest) error {
	return a.deletePod(ctx, req.VMI.Namespace, req.Target.Pod)
}

// RecordMigrationEnd writes the end of a migration that did not move the
// guest into the VMI's migrationState, if it is still this migration's.
func (a *Activities) RecordMigrationEnd(ctx context.Context, req virt.NodeRequest, res virt.MigrateResult) error {
	vmi, err := a.vmi(ctx, req.VMI)
	if err != nil {
		return err
	}
	st := vmi.Status.MigrationState
	if st == nil || string(st.MigrationUID) != req.Migration.UID || st.Completed || st.Failed {
		return nil
	}
	before := vmi.DeepCopy()
	now := metav1.Now()
	st.Failed, st.FailureReason, st.EndTimestamp = true, res.Reason, &now
	if err := a.Client.Status().Patch(ctx, vmi, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("recording the end of the migration of %s: %w", vmi.Name, err)
	}
	return nil
}

func (a *Activities) deletePod(ctx context.Context, namespace, name string) error {
	if name == "" {
		return nil
	}
	pod := &corev1.Pod{}
	pod.Namespace, pod.Name = namespace, name
	if err := a.Client.Delete(ctx, pod); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting pod %s: %w", name, err)
	}
	return nil
}
