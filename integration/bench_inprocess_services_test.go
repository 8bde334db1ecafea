//go:build integration && bench

package integration

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/virtflow/virtflow/version"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/virtflow/virtflow/commands/temporalclient"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/wire/launcherpod"
	"github.com/virtflow/virtflow/worker"
)

// Version is what the in-process operators report as their version.
const Version = version.Base

// ServicesConfig selects which in-process services run and where they connect.
type ServicesConfig struct {
	KubeconfigPath  string
	TemporalAddress string
	// TemporalTLS is the client certificate the services dial with.
	TemporalTLS temporalclient.TLS
	// CertDir holds the webhook CA and serving certificate.
	CertDir string
	// SkipHCO leaves out hco-operator and hco-webhook.
	SkipHCO bool
	// SkipComponentOperators leaves out virt-, cdi-, network-addons-, ssp-
	// and hostpath-provisioner-operators.
	SkipComponentOperators bool
	// SkipWorker leaves out the Temporal worker (it can run as its own process).
	SkipWorker bool
	// SkipNodeWorkers leaves out the node-local workers of Nodes (each can
	// run as its own process: virtflow worker --node NAME).
	SkipNodeWorkers bool
	// Log receives operator and worker logs; nil means stderr.
	Log io.Writer
	// MetricsAddress serves Prometheus metrics; empty turns them off.
	MetricsAddress string
	// SkipVirtController leaves out the VMI controller.
	SkipVirtController bool
	// Nodes are node agents (virt-handler) to run in this process.
	Nodes []handler.Config
	// UploadProxyAddress is where cdi-uploadproxy listens (127.0.0.1 and
	// a free port when empty).
	UploadProxyAddress string
}

// Services are the operators, webhooks and worker running in this process.
type Services struct {
	cancel   context.CancelFunc
	mgrDone  chan error
	temporal client.Client
	worker   sdkworker.Worker
	nodeWork []sdkworker.Worker
	runtime  *Runtime
	webhooks *webhookSet
	stopOnce sync.Once
	stopErr  error
	upload   *uploadProxyEndpoint
	// uploadKey verifies upload tokens on the nodes: cdi-apiserver's
	// public key, once it runs.
	uploadKey ed25519.PublicKey
}

// UploadProxyURL is cdi-uploadproxy's URL; empty when it does not run.
func (s *Services) UploadProxyURL() string {
	if s.upload == nil {
		return ""
	}
	return s.upload.url
}

// StartServices starts a controller manager with the selected operators and
// webhooks, and the control worker.
func StartServices(ctx context.Context, cfg ServicesConfig) (*Services, error) {
	restCfg, err := clientcmd.BuildConfigFromFlags("", cfg.KubeconfigPath)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", cfg.KubeconfigPath, err)
	}
	// Reconcilers and activities issue bursts of small requests; the
	// client-go default of 5 QPS would dominate install time.
	restCfg.QPS, restCfg.Burst = 200, 400
	logOut := cfg.Log
	if logOut == nil {
		logOut = os.Stderr
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logOut)))
	opts, err := cfg.TemporalTLS.Options(cfg.TemporalAddress, worker.DefaultNamespace)
	if err != nil {
		return nil, err
	}
	opts.Logger = sdklog.NewStructuredLogger(slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: slog.LevelWarn})))
	tc, err := client.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("connecting to temporal at %s: %w", cfg.TemporalAddress, err)
	}
	s := &Services{temporal: tc, mgrDone: make(chan error, 1)}
	if err := s.start(ctx, cfg, restCfg); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

func (s *Services) start(ctx context.Context, cfg ServicesConfig, restCfg *rest.Config) error {
	scheme, err := kubescheme.New()
	if err != nil {
		return err
	}
	var hookServer webhook.Server
	if !cfg.SkipHCO || !cfg.SkipVirtController {
		if s.webhooks, err = newWebhookSet(cfg.CertDir); err != nil {
			return err
		}
		hookServer = s.webhooks.server
	}
	metricsAddr := cfg.MetricsAddress
	if metricsAddr == "" {
		metricsAddr = "0"
	}
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: "0", WebhookServer: hookServer,
		// Tests run several managers in one process; metric names of
		// same-named controllers are shared, which is fine there.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return fmt.Errorf("creating controller manager: %w", err)
	}
	if err := s.register(mgr, cfg); err != nil {
		return err
	}
	mctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	go func() {
		err := mgr.Start(mctx)
		if err != nil {
			ctrl.Log.Error(err, "controller manager stopped")
		}
		s.mgrDone <- err
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return errors.New("controller manager caches did not sync")
	}
	return s.startServing(ctx, mctx, cfg, mgr, restCfg)
}

// startServing starts what serves others once the manager's caches are
// warm: webhooks, virt-api and the Temporal worker.
func (s *Services) startServing(ctx, mctx context.Context, cfg ServicesConfig, mgr ctrl.Manager, restCfg *rest.Config) error {
	if s.webhooks != nil {
		if err := s.webhooks.register(ctx, mgr.GetClient()); err != nil {
			return err
		}
		go s.webhooks.rotate(mctx, mgr.GetClient())
	}
	if !cfg.SkipVirtController {
		if err := startVirtAPI(mctx, mgr.GetClient(), filepath.Join(cfg.CertDir, "virt-api")); err != nil {
			return err
		}
		pub, err := startCDIAPI(mctx, mgr.GetClient(), filepath.Join(cfg.CertDir, "cdi-api"))
		if err != nil {
			return err
		}
		s.uploadKey = pub
		if err := s.upload.serve(mctx, mgr.GetClient(), s.temporal, pub); err != nil {
			return err
		}
	}
	return s.startWorkers(cfg, mgr, restCfg)
}

func (s *Services) startWorkers(cfg ServicesConfig, mgr ctrl.Manager, restCfg *rest.Config) error {
	direct, err := crclient.New(restCfg, crclient.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return fmt.Errorf("creating worker kubernetes client: %w", err)
	}
	if !cfg.SkipWorker {
		s.worker = worker.NewControl(s.temporal, direct, worker.WithDurableTasks(restCfg))
		if err := s.worker.Start(); err != nil {
			return fmt.Errorf("starting temporal worker: %w", err)
		}
	}
	if cfg.SkipNodeWorkers {
		return nil
	}
	for _, n := range cfg.Nodes {
		key := func() (ed25519.PublicKey, error) {
			if s.uploadKey == nil {
				return nil, errors.New("cdi-apiserver does not run in this process")
			}
			return s.uploadKey, nil
		}
		w := worker.NewNode(s.temporal, n.NodeName, n.NodeIP, launcherpod.User, direct,
			worker.WithHostRoot(n.StorageRoot()), worker.WithUploadKey(key))
		if err := w.Start(); err != nil {
			return fmt.Errorf("starting node worker of %s: %w", n.NodeName, err)
		}
		s.nodeWork = append(s.nodeWork, w)
	}
	return nil
}

// Stop stops the worker, then the manager and its components. Calling it
// again returns the first result.
func (s *Services) Stop() error {
	s.stopOnce.Do(func() { s.stopErr = s.stop() })
	return s.stopErr
}

func (s *Services) stop() error {
	var errs []error
	if s.worker != nil {
		s.worker.Stop()
	}
	for _, w := range s.nodeWork {
		w.Stop()
	}
	if s.cancel != nil {
		s.cancel()
		select {
		case err := <-s.mgrDone:
			errs = append(errs, err)
		case <-time.After(30 * time.Second):
			errs = append(errs, errors.New("controller manager did not stop within 30s"))
		}
	}
	if s.runtime != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		errs = append(errs, s.runtime.StopAll(ctx))
	}
	s.temporal.Close()
	return errors.Join(errs...)
}

// services starts in-process operators; the test stops them at its end.
func services(t *testing.T, cfg ServicesConfig) *Services {
	t.Helper()
	cfg.KubeconfigPath = env.cp.ComponentKubeconfigPath()
	cfg.TemporalAddress, cfg.TemporalTLS = env.temporal.FrontendAddress(), env.temporal.AdminTLS()
	if cfg.CertDir == "" {
		cfg.CertDir = filepath.Join(t.TempDir(), "certs")
	}
	cfg.Log = logFile(t, "services")
	s, err := StartServices(context.Background(), cfg)
	if err != nil {
		t.Fatalf("starting services: %v", err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}
