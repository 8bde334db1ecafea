//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/virtflow/virtflow/embedded/platform"

	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/commands/cdicontroller"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/node/hostpath"
	"github.com/virtflow/virtflow/operators/cdi/cdi"
	"github.com/virtflow/virtflow/operators/cdi/cdiconfig"
	"github.com/virtflow/virtflow/operators/hco/hyperconverged"
	"github.com/virtflow/virtflow/operators/hostpathprovisioner/hostpathprovisioner"
	"github.com/virtflow/virtflow/operators/kubevirt/kubevirt"
	"github.com/virtflow/virtflow/operators/kubevirt/vm"
	"github.com/virtflow/virtflow/operators/kubevirt/vmi"
	"github.com/virtflow/virtflow/operators/networkaddons/networkaddonsconfig"
	"github.com/virtflow/virtflow/operators/ssp/ssp"
	"github.com/virtflow/virtflow/worker"
)

func (s *Services) register(mgr ctrl.Manager, cfg ServicesConfig) error {
	if !cfg.SkipHCO {
		r := &hyperconverged.Reconciler{
			Client: mgr.GetClient(), Temporal: s.temporal, TaskQueue: worker.ControlTaskQueue,
			Recorder: mgr.GetEventRecorderFor("hyperconverged-operator"), Version: Version,
			Namespace: platform.Namespace,
		}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up hco-operator: %w", err)
		}
	}
	if s.webhooks != nil {
		s.webhooks.attach(mgr, !cfg.SkipHCO, !cfg.SkipVirtController, !cfg.SkipComponentOperators)
	}
	if err := s.registerVirt(mgr, cfg); err != nil {
		return err
	}
	if cfg.SkipComponentOperators {
		return nil
	}
	return s.registerComponentOperators(mgr)
}

// registerComponentOperators adds virt-, cdi-, network-addons-, ssp- and
// hostpath-provisioner-operators, and CDIConfig.
func (s *Services) registerComponentOperators(mgr ctrl.Manager) error {
	disc, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("creating discovery client: %w", err)
	}
	kinds := []workloads.Kind{
		kubevirt.Kind(Version), cdi.Kind(Version), networkaddonsconfig.Kind(Version),
		ssp.Kind(Version), hostpathprovisioner.Kind(Version),
	}
	factories := map[string]Factory{}
	for _, k := range kinds {
		for _, name := range k.Components {
			factories[name] = apiHealthFactory(disc)
		}
	}
	s.runtime = NewRuntime(factories)
	cfgr := &cdiconfig.Reconciler{Client: mgr.GetClient()}
	if s.upload != nil {
		cfgr.UploadProxyURL, cfgr.UploadProxyCA = s.upload.url, s.upload.ca
	}
	if err := cfgr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up CDIConfig controller: %w", err)
	}
	for _, k := range kinds {
		r := &workloads.Reconciler{
			Client: mgr.GetClient(), Deployer: s.runtime, Kind: k,
			Recorder: mgr.GetEventRecorderFor(k.GVK.Kind + "-operator"),
		}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up %s operator: %w", k.GVK.Kind, err)
		}
	}
	return nil
}

// apiHealthFactory builds a component whose health check fails when the
// component cannot reach the kube-apiserver, the one dependency every
// component has before it can do any work.
func apiHealthFactory(disc discovery.DiscoveryInterface) Factory {
	return func(ctx context.Context) (http.Handler, error) {
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
			rctx, cancel := context.WithTimeout(r.Context(), time.Second)
			defer cancel()
			if _, err := disc.RESTClient().Get().AbsPath("/readyz").DoRaw(rctx); err != nil {
				http.Error(w, "kube-apiserver unreachable: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte("ok"))
		})
		return mux, nil
	}
}

func (s *Services) registerVirt(mgr ctrl.Manager, cfg ServicesConfig) error {
	if !cfg.SkipVirtController {
		r := &vmi.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor("virt-controller")}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up virt-controller: %w", err)
		}
		vmr := &vm.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor("virt-controller")}
		if err := vmr.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up virt-controller VM controller: %w", err)
		}
		if err := s.registerCDI(mgr, cfg); err != nil {
			return err
		}
	}
	for _, n := range cfg.Nodes {
		if err := handler.Setup(mgr, n); err != nil {
			return err
		}
		hp := hostpath.Config{NodeName: n.NodeName, HostRoot: n.StorageRoot(), Version: Version, KubeletRoot: n.KubeletRoot}
		if err := hostpath.Setup(mgr, hp); err != nil {
			return err
		}
	}
	return nil
}

// registerCDI adds cdi-deployment's controllers and prepares
// cdi-uploadproxy's endpoint.
func (s *Services) registerCDI(mgr ctrl.Manager, cfg ServicesConfig) error {
	var err error
	if s.upload, err = newUploadProxyEndpoint(filepath.Join(cfg.CertDir, "cdi-uploadproxy"), cfg.UploadProxyAddress); err != nil {
		return err
	}
	// CDIConfig is kept by the component operators' side, which knows
	// the proxy's endpoint; see registerComponentOperators.
	return cdicontroller.Setup(mgr, s.temporal, nil)
}
