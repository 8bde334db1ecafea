// Package hcooperator is hco-operator's command: the HyperConverged
// reconciler, which installs, upgrades and uninstalls through Temporal
// workflows, and the keeper of hco-webhook's and
// hostpath-provisioner-operator's certificates and webhook configurations.
package hcooperator

import (
	"context"
	"fmt"
	"time"

	temporal "go.temporal.io/sdk/client"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/operands"
	"github.com/virtflow/virtflow/operators/hco/hyperconverged"
	"github.com/virtflow/virtflow/operators/hostpathprovisioner/hostpathprovisioner"
	"github.com/virtflow/virtflow/worker"
)

// Main runs hco-operator until ctx ends.
func Main(ctx context.Context, args []string) error {
	cmd := manager.Command{Name: "hco-operator", LeaderElectionID: "hyperconverged-cluster-operator-lock", Temporal: true}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, tc temporal.Client) error {
		r := &hyperconverged.Reconciler{
			Client: mgr.GetClient(), Temporal: tc, TaskQueue: worker.ControlTaskQueue,
			Recorder: mgr.GetEventRecorderFor("hyperconverged-operator"), Version: operands.Version,
			Namespace: manager.Namespace(),
		}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up hco-operator: %w", err)
		}
		if err := mgr.Add(&webhookKeeper{mgr: mgr}); err != nil {
			return fmt.Errorf("adding hco-webhook's certificate keeper: %w", err)
		}
		return nil
	})
}

// webhookKeeper applies hco-webhook's and hostpath-provisioner-operator's
// certificates and webhook configurations (OLM's part upstream) at start
// and every minute, so a certificate due for renewal is reissued and the
// new CA published before the old one expires.
type webhookKeeper struct{ mgr ctrl.Manager }

// NeedLeaderElection keeps one keeper among the replicas.
func (k *webhookKeeper) NeedLeaderElection() bool { return true }

// Start keeps them until ctx ends.
func (k *webhookKeeper) Start(ctx context.Context) error {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		if err := k.apply(ctx); err != nil {
			log.FromContext(ctx).Error(err, "keeping hco-webhook's certificate")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (k *webhookKeeper) apply(ctx context.Context) error {
	objs, err := hyperconverged.WebhookObjects(ctx, k.mgr.GetAPIReader(), manager.Namespace())
	if err != nil {
		return err
	}
	hpp, err := hostpathprovisioner.WebhookObjects(ctx, k.mgr.GetAPIReader(), manager.Namespace())
	if err != nil {
		return err
	}
	objs = append(objs, hpp...)
	for _, o := range objs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return fmt.Errorf("converting %s: %w", o.GetName(), err)
		}
		u := &unstructured.Unstructured{Object: m}
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		if err := k.mgr.GetClient().Patch(ctx, u, client.Apply, client.FieldOwner("hco-operator"), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s: %w", o.GetName(), err)
		}
	}
	return nil
}
