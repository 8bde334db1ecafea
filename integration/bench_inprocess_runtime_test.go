//go:build integration && bench

package integration

// The benchmark runs the workloads that component operators deploy
// (virt-api, cdi-apiserver, ...) inside its own process, beside the
// simulated node's agent, so mass-create figures are not bounded by one
// kubelet. Each runs its own HTTP server on 127.0.0.1, and health is always
// probed over that server, so a hung or stopped workload reads as unhealthy.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Factory builds a component's HTTP surface; it must serve /healthz.
type Factory func(ctx context.Context) (http.Handler, error)

// Runtime starts, stops and probes components by name.
type Runtime struct {
	mu        sync.Mutex
	factories map[string]Factory
	running   map[string]*instance
	client    *http.Client
}

type instance struct {
	addr   string
	server *http.Server
	cancel context.CancelFunc
}

// NewRuntime knows how to start the given components.
func NewRuntime(factories map[string]Factory) *Runtime {
	return &Runtime{
		factories: factories,
		running:   map[string]*instance{},
		client:    &http.Client{Timeout: 2 * time.Second},
	}
}

// Deploy starts the component unless it already runs.
func (r *Runtime) Deploy(ctx context.Context, _ client.Object, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.running[name]; ok {
		return nil
	}
	factory, ok := r.factories[name]
	if !ok {
		return fmt.Errorf("component %s is not known to this runtime", name)
	}
	// The component outlives the reconcile that deployed it.
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	handler, err := factory(cctx)
	if err != nil {
		cancel()
		return fmt.Errorf("starting component %s: %w", name, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		return fmt.Errorf("listening for component %s: %w", name, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	r.running[name] = &instance{addr: l.Addr().String(), server: srv, cancel: cancel}
	return nil
}

// Undeploy stops the component; stopping one that is not running is fine.
func (r *Runtime) Undeploy(ctx context.Context, _ client.Object, name string) error {
	r.mu.Lock()
	inst, ok := r.running[name]
	delete(r.running, name)
	r.mu.Unlock()
	if !ok {
		return nil
	}
	inst.cancel()
	if err := inst.server.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("stopping component %s: %w", name, err)
	}
	return nil
}

// Readiness says what a passing probe shows here: the component's code
// runs inside the virtflow process whatever its CR says, and the deployed
// server only proves the kube-apiserver is reachable from it.
func (r *Runtime) Readiness() string {
	return "placeholders: each runs inside the virtflow process and checks only that the kube-apiserver answers"
}

// Probe GETs the component's /healthz and fails unless it answers 200.
func (r *Runtime) Probe(ctx context.Context, _ client.Object, name string) error {
	r.mu.Lock()
	inst, ok := r.running[name]
	r.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s is not running", name)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+inst.addr+"/healthz", nil)
	if err != nil {
		return fmt.Errorf("probing %s: %w", name, err)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s does not answer its health check: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s health check answered %s", name, resp.Status)
	}
	return nil
}

// Running lists the running components, sorted.
func (r *Runtime) Running() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.running))
	for n := range r.running {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// StopAll stops every component, used on shutdown.
func (r *Runtime) StopAll(ctx context.Context) error {
	var errs []error
	for _, n := range r.Running() {
		errs = append(errs, r.Undeploy(ctx, nil, n))
	}
	return errors.Join(errs...)
}
