// Package virt holds the control steps of KubeVirt's long-running
// operations: a migration's plan, its target pod and the hand-over,
// through the Kubernetes API.
package virt

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	migrationsv1alpha1 "kubevirt.io/api/migrations/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/kube/migrationpolicy"
	"github.com/virtflow/virtflow/kube/vmistatus"
)

// Activities run a migration's control steps.
type Activities struct {
	Client client.Client
}

// Upstream's defaults of the cluster's migration configuration.
const (
	defaultCompletionTimeoutPerGiB = 150
	defaultProgressTimeout         = 150
)

// PlanMigration checks the VMI can move now, records its migrationState
// (source, start, the policy and configuration in effect) and returns the
// plan. A VMI that does not run yet is waited for (the step is retried),
// as upstream's controller waits; one that cannot move refuses for good.
func (a *Activities) PlanMigration(ctx context.Context, in virt.MigrateInput) (virt.MigrationPlan, error) {
	vmi, err := a.vmi(ctx, in.VMI)
	if err != nil {
		return virt.MigrationPlan{}, err
	}
	if err := movable(vmi, in.Migration.UID); err != nil {
		return virt.MigrationPlan{}, err
	}
	if vmi.Status.Phase != kubevirtv1.Running {
		return virt.MigrationPlan{}, fmt.Errorf("waiting for VMI %s/%s to run (it is %s)", vmi.Namespace, vmi.Name, vmi.Status.Phase)
	}
	cfg, policy, err := a.configuration(ctx, vmi)
	if err != nil {
		return virt.MigrationPlan{}, err
	}
	pod, err := a.sourcePod(ctx, vmi, in.Migration.UID)
	if err != nil {
		return virt.MigrationPlan{}, err
	}
	if err := a.recordStart(ctx, vmi, in.Migration.UID, pod, policy, cfg); err != nil {
		return virt.MigrationPlan{}, err
	}
	return planOf(vmi, pod, policy, cfg), nil
}

// vmi reads the VMI the migration names, refusing one that was replaced.
func (a *Activities) vmi(ctx context.Context, ref virt.Ref) (*kubevirtv1.VirtualMachineInstance, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := a.Client.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, vmi); err != nil {
		return nil, fmt.Errorf("reading VMI %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if ref.UID != "" && string(vmi.UID) != ref.UID {
		return nil, refused(fmt.Sprintf("the VMI \"%s/%s\" does not exist", ref.Namespace, ref.Name))
	}
	return vmi, nil
}

// movable is the admission's check again, on the VMI as it is now.
func movable(vmi *kubevirtv1.VirtualMachineInstance, migrationUID string) error {
	if err := vmistatus.MigrationRefusal(vmi); err != nil {
		return refused(err.Error())
	}
	if st := vmi.Status.MigrationState; st != nil && string(st.MigrationUID) != migrationUID && !st.Completed && !st.Failed {
		return refused(vmistatus.InFlightMigration(string(st.MigrationUID), vmi.Name).Error())
	}
	return nil
}

func refused(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, virt.ErrTypeMigrationRefused, nil)
}

// configuration is the cluster's migration configuration with the
// policy that applies to the VMI overlaid.
func (a *Activities) configuration(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) (kubevirtv1.MigrationConfiguration, string, error) {
	var cluster kubevirtv1.MigrationConfiguration
	kvs := &kubevirtv1.KubeVirtList{}
	if err := a.Client.List(ctx, kvs); err != nil {
		return cluster, "", fmt.Errorf("reading the KubeVirt configuration: %w", err)
	}
	if len(kvs.Items) > 0 && kvs.Items[0].Spec.Configuration.MigrationConfiguration != nil {
		cluster = *kvs.Items[0].Spec.Configuration.MigrationConfiguration
	}
	policies := &migrationsv1alpha1.MigrationPolicyList{}
	if err := a.Client.List(ctx, policies); err != nil {
		return cluster, "", fmt.Errorf("reading the migration policies: %w", err)
	}
	ns := &corev1.Namespace{}
	if err := a.Client.Get(ctx, client.ObjectKey{Name: vmi.Namespace}, ns); err != nil {
		return cluster, "", fmt.Errorf("reading namespace %s: %w", vmi.Namespace, err)
	}
	cfg, name := migrationpolicy.Effective(cluster, migrationpolicy.Select(policies.Items, vmi.Labels, ns.Labels))
	return cfg, name, nil
}

// sourcePod is the VMI's running launcher pod on its node: the one it
// started in, or the target of the migration that brought it there (one
// launcher of a VMI runs on a node: a target is placed elsewhere), never
// this migration's own target.
func (a *Activities) sourcePod(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, migrationUID string) (string, error) {
	pods := &corev1.PodList{}
	if err := a.Client.List(ctx, pods, client.InNamespace(vmi.Namespace), client.MatchingLabels{kubevirtv1.CreatedByLabel: string(vmi.UID)}); err != nil {
		return "", fmt.Errorf("listing the launcher pods of %s: %w", vmi.Name, err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == vmi.Status.NodeName && p.Status.Phase == corev1.PodRunning && p.Labels[kubevirtv1.MigrationJobLabel] != migrationUID {
			return p.Name, nil
		}
	}
	return "", fmt.Errorf("VMI %s has no running launcher pod on %s yet", vmi.Name, vmi.Status.NodeName)
}

// recordStart writes migrationState, once: a retried step keeps the
// first start.
func (a *Activities) recordStart(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, uid, pod, policy string, cfg kubevirtv1.MigrationConfiguration) error {
	if st := vmi.Status.MigrationState; st != nil && string(st.MigrationUID) == uid {
		return nil
	}
	before := vmi.DeepCopy()
	now := metav1.Now()
	st := &kubevirtv1.VirtualMachineInstanceMigrationState{MigrationUID: types.UID(uid), SourceNode: vmi.Status.NodeName,
		SourcePod: pod, StartTimestamp: &now, VMIMConfigurationOptions: options(cfg)}
	if policy != "" {
		st.MigrationPolicyName = &policy
	}
	vmi.Status.MigrationState = st
	if err := a.Client.Status().Patch(ctx, vmi, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("recording the migration of %s: %w", vmi.Name, err)
	}
	return nil
}

// options is the configuration as migrationState records it.
func options(c kubevirtv1.MigrationConfiguration) *kubevirtv1.VMIMConfigurationOptions {
	return &kubevirtv1.VMIMConfigurationOptions{NodeDrainTaintKey: c.NodeDrainTaintKey, ParallelOutboundMigrationsPerNode: c.ParallelOutboundMigrationsPerNode,
		ParallelMigrationsPerCluster: c.ParallelMigrationsPerCluster, AllowAutoConverge: c.AllowAutoConverge, BandwidthPerMigration: c.BandwidthPerMigration,
		CompletionTimeoutPerGiB: c.CompletionTimeoutPerGiB, MaxDowntimeMs: c.MaxDowntimeMs, ProgressTimeout: c.ProgressTimeout,
		UnsafeMigrationOverride: c.UnsafeMigrationOverride, AllowPostCopy: c.AllowPostCopy, AllowWorkloadDisruption: c.AllowWorkloadDisruption}
}
