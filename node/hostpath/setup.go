package hostpath

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	"github.com/virtflow/virtflow/node/csi"
	"github.com/virtflow/virtflow/node/registrar"
)

// Setup adds the node's hostpath provisioner to a manager: the CSI driver
// for the pools HostPathProvisioner CRs define, the provisioner for claims
// scheduled to this node and the deleter of its released volumes.
func Setup(mgr ctrl.Manager, cfg Config) error {
	if cfg.HostRoot == "" {
		cfg.HostRoot = "/"
	}
	pl := &pools{c: mgr.GetClient(), cfg: cfg}
	if err := mgr.Add(&shutdown{pl}); err != nil {
		return fmt.Errorf("adding CSI driver lifecycle: %w", err)
	}
	err := ctrl.NewControllerManagedBy(mgr).Named("hostpath-pools-" + cfg.NodeName).
		For(&hppv1beta1.HostPathProvisioner{}).Complete(pl)
	if err != nil {
		return fmt.Errorf("setting up hostpath pools: %w", err)
	}
	if cfg.Sidecars {
		return nil
	}
	p := &provisioner{c: mgr.GetClient(), cfg: cfg, recorder: mgr.GetEventRecorderFor(csi.DriverName)}
	onNode := builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetAnnotations()[AnnSelectedNode] == cfg.NodeName
	}))
	err = ctrl.NewControllerManagedBy(mgr).Named("hostpath-provisioner-"+cfg.NodeName).
		For(&corev1.PersistentVolumeClaim{}, onNode).Complete(p)
	if err != nil {
		return fmt.Errorf("setting up hostpath provisioner: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).Named("hostpath-deleter-" + cfg.NodeName).
		For(&corev1.PersistentVolume{}).Complete(&deleter{p: p})
	if err != nil {
		return fmt.Errorf("setting up hostpath deleter: %w", err)
	}
	return nil
}

// shutdown stops the CSI driver with the manager and labels the node with
// the driver's topology key, as the kubelet's CSI registration does, so
// the scheduler can match volumes' node affinity.
type shutdown struct{ p *pools }

func (s *shutdown) Start(ctx context.Context) error {
	go s.p.labelNode(ctx)
	if s.p.cfg.KubeletRoot != "" && !s.p.cfg.Sidecars {
		go s.p.register(ctx)
	}
	<-ctx.Done()
	s.p.Shutdown()
	return nil
}

func (p *pools) labelNode(ctx context.Context) {
	for {
		node := &corev1.Node{}
		err := p.c.Get(ctx, types.NamespacedName{Name: p.cfg.NodeName}, node)
		if err == nil && node.Labels[csi.TopologyKey] == p.cfg.NodeName {
			return
		}
		if err == nil {
			patch := client.MergeFrom(node.DeepCopy())
			if node.Labels == nil {
				node.Labels = map[string]string{}
			}
			node.Labels[csi.TopologyKey] = p.cfg.NodeName
			if p.c.Patch(ctx, node, patch) == nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// register keeps the driver registered with the kubelet: a refusal (the
// driver's socket is not up yet) is tried again, as the registrar sidecar's
// restarts would.
func (p *pools) register(ctx context.Context) {
	cfg := registrar.Config{
		DriverName: csi.DriverName, Endpoint: p.cfg.Socket(),
		RegistrationDir: filepath.Join(p.cfg.KubeletRoot, "plugins_registry"),
	}
	for {
		err := registrar.Run(ctx, cfg)
		if ctx.Err() != nil {
			return
		}
		log.FromContext(ctx).Info("registering the CSI driver with the kubelet again", "reason", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}
