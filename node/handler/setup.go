package handler

import (
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/virtflow/virtflow/node/deviceplugin"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// Setup adds the node agent to a manager: node registration and
// heartbeats, the launcher pod runtime and VMI status reporting.
func Setup(mgr ctrl.Manager, cfg Config) error {
	if len(cfg.LauncherCommand) == 0 && cfg.KubeletRoot == "" {
		return fmt.Errorf("node agent %s has no launcher command", cfg.NodeName)
	}
	if cfg.UID == 0 {
		return fmt.Errorf("node agent %s: launchers must not run their guests as root", cfg.NodeName)
	}
	if cfg.Namespace == "" {
		cfg.Namespace = "kubevirt-hyperconverged"
	}
	if err := prepareHostCache(cfg); err != nil {
		return err
	}
	api, err := newAPIServer(mgr.GetClient(), cfg)
	if err != nil {
		return err
	}
	if err := mgr.Add(api); err != nil {
		return fmt.Errorf("adding node agent API: %w", err)
	}
	if err := mgr.AddReadyzCheck("agent-address", api.ready); err != nil {
		return fmt.Errorf("adding node agent readiness: %w", err)
	}
	if cfg.KubeletRoot != "" {
		if err := mgr.Add(manager.RunnableFunc(TunPlugin(cfg.KubeletRoot).Run)); err != nil {
			return fmt.Errorf("adding the tun device plugin: %w", err)
		}
	}
	if err := mgr.Add(&nodeKeeper{c: mgr.GetClient(), cfg: cfg, api: api}); err != nil {
		return fmt.Errorf("adding node keeper: %w", err)
	}
	onNode := builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
		p, ok := o.(*corev1.Pod)
		return ok && p.Spec.NodeName == cfg.NodeName
	}))
	// Several workers: starting a launcher and reporting a VMI each wait on
	// processes and the API, and a node takes many VMs at once.
	err = ctrl.NewControllerManagedBy(mgr).Named("virt-handler-pods-"+cfg.NodeName).
		WithOptions(controller.Options{MaxConcurrentReconciles: 8}).
		For(&corev1.Pod{}, onNode).Complete(&podReconciler{c: mgr.GetClient(), cfg: cfg})
	if err != nil {
		return fmt.Errorf("setting up launcher pod runtime: %w", err)
	}
	vmiOnNode := builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
		v, ok := o.(*kubevirtv1.VirtualMachineInstance)
		return ok && v.Status.NodeName == cfg.NodeName
	}))
	err = ctrl.NewControllerManagedBy(mgr).Named("virt-handler-vmis-"+cfg.NodeName).
		WithOptions(controller.Options{MaxConcurrentReconciles: 8}).
		For(&kubevirtv1.VirtualMachineInstance{}, vmiOnNode).Complete(&vmiReconciler{c: mgr.GetClient(), cfg: cfg, rec: mgr.GetEventRecorderFor("virt-handler")})
	if err != nil {
		return fmt.Errorf("setting up VMI reporting: %w", err)
	}
	return nil
}

// prepareHostCache gives the launcher pods of a real node the libvirt cache
// they share, owned by the user they run as.
func prepareHostCache(cfg Config) error {
	if cfg.KubeletRoot == "" {
		return nil
	}
	if err := os.MkdirAll(launcherpod.HostCacheDir, 0o700); err != nil {
		return fmt.Errorf("creating launcher cache: %w", err)
	}
	if err := os.Chown(launcherpod.HostCacheDir, cfg.UID, cfg.GID); err != nil {
		return fmt.Errorf("handing launcher cache to uid %d: %w", cfg.UID, err)
	}
	return nil
}

// TunPlugin offers /dev/net/tun to launcher pods as devices.kubevirt.io/tun:
// qemu opens the tap device the agent made through it.
func TunPlugin(kubeletRoot string) *deviceplugin.Plugin {
	return &deviceplugin.Plugin{Name: "tun", Path: "/dev/net/tun", Count: 1000, KubeletRoot: kubeletRoot}
}
