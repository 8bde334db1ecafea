package virt

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
)

// HandOver makes the target the VMI's node once the guest runs there:
// status.nodeName and the node label move to the node the target pod
// runs on (read from the cluster, never taken from the input),
// migrationState says completed, an evacuation that asked for the move is
// over (status.evacuationNodeName cleared, in the same write, so the
// evacuation controller never sees the VMI moved yet still marked), and
// the source pod, whose domain left, goes. Repeated, it changes nothing
// more.
func (a *Activities) HandOver(ctx context.Context, req virt.NodeRequest) error {
	vmi, err := a.vmi(ctx, req.VMI)
	if err != nil {
		return err
	}
	target, err := a.targetPodOf(ctx, req)
	if err != nil {
		return err
	}
	if target.Spec.NodeName == "" || target.Spec.NodeName != req.Target.Node {
		return refused(fmt.Sprintf("target pod %s runs on %q, not on %s", target.Name, target.Spec.NodeName, req.Target.Node))
	}
	// Checked before anything is written: a wrong source stops the step.
	source, err := a.sourcePodOf(ctx, req)
	if err != nil && !gone(err) {
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
		vmi.Status.EvacuationNodeName = ""
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
	if source == nil {
		return nil
	}
	return a.deleteChecked(ctx, source)
}

// RemoveTarget removes the target pod of a migration that did not move
// the guest. A request naming no pod comes from a creation the
// cancellation interrupted: the pod, if made, has the migration's name.
func (a *Activities) RemoveTarget(ctx context.Context, req virt.NodeRequest) error {
	if req.Target.Pod == "" {
		req.Target.Pod = targetPodName(req.VMI.Name, req.Migration.UID)
	}
	target, err := a.targetPodOf(ctx, req)
	if gone(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return a.deleteChecked(ctx, target)
}

// RecordMigrationEnd writes the end of a migration that did not move the
// guest into the VMI's migrationState, if it is still this migration's.
func (a *Activities) RecordMigrationEnd(ctx context.Context, req virt.NodeRequest, res virt.MigrateResult) error {
	vmi, err := a.vmi(ctx, req.VMI)
	var app *temporal.ApplicationError
	if gone(err) || errors.As(err, &app) && app.Type() == virt.ErrTypeMigrationRefused {
		// The VMI went, or another took its name: nothing to record on.
		return nil
	}
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
