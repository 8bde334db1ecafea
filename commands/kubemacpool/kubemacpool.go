// Package kubemacpool is kubemacpool's command (the
// kubemacpool-mac-controller-manager pod): the VirtualMachine mutating
// webhook that hands out MACs from the cluster's range, the controller that
// settles them as VMs are stored and deleted, and the expiry of
// reservations whose VM never arrived. One elected replica holds the pool.
package kubemacpool

import (
	"context"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/operators/networkaddons/kubemacpool"
)

// LeaderElectionID is the lease the replicas elect one pool holder by.
const LeaderElectionID = "kubemacpool-election"

type settings struct {
	certDir, rangeStart, rangeEnd string
	waitSeconds                   int
}

func (s *settings) flags(fs *flag.FlagSet) {
	fs.StringVar(&s.certDir, "cert-dir", kubemacpool.CertDir, "directory of the serving tls.crt and tls.key")
	fs.StringVar(&s.rangeStart, "range-start", os.Getenv(kubemacpool.RangeStartEnv), "first MAC of the pool; $"+kubemacpool.RangeStartEnv+" by default")
	fs.StringVar(&s.rangeEnd, "range-end", os.Getenv(kubemacpool.RangeEndEnv), "last MAC of the pool; $"+kubemacpool.RangeEndEnv+" by default")
	fs.IntVar(&s.waitSeconds, "wait-time", int(kubemacpool.DefaultWaitTime/time.Second), "seconds a reservation waits for its VM before it is checked")
}

// Main runs kubemacpool until ctx ends.
func Main(ctx context.Context, args []string) error {
	var s settings
	cmd := manager.Command{Name: "kubemacpool", LeaderElectionID: LeaderElectionID, Flags: s.flags}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, _ client.Client) error {
		return s.setup(mgr)
	})
}

func (s settings) setup(mgr ctrl.Manager) error {
	r, err := kubemacpool.ParseRange(s.rangeStart, s.rangeEnd)
	if err != nil {
		return fmt.Errorf("reading the mac range: %w", err)
	}
	wait := time.Duration(s.waitSeconds) * time.Second
	pool, err := kubemacpool.NewPool(r, wait)
	if err != nil {
		return fmt.Errorf("creating the mac pool: %w", err)
	}
	rebuilt := &atomic.Bool{}
	vmc := &kubemacpool.VMController{Client: mgr.GetClient(), Pool: pool, Rebuilt: rebuilt}
	if err := vmc.SetupWithManager(mgr); err != nil {
		return err
	}
	if _, err := mgr.GetCache().GetInformer(context.Background(), &corev1.Namespace{}); err != nil {
		return fmt.Errorf("watching namespaces: %w", err)
	}
	logger := mgr.GetLogger().WithName("kubemacpool")
	exp := &kubemacpool.Expirer{Pool: pool, Reader: mgr.GetAPIReader(), Period: expiryPeriod(wait), Rebuilt: rebuilt,
		Log: func(err error) { logger.Error(err, "expiry round failed") }}
	if err := mgr.Add(exp); err != nil {
		return fmt.Errorf("adding the reservation expiry: %w", err)
	}
	j := &journal{c: mgr.GetClient(), api: mgr.GetAPIReader(), ns: manager.Namespace(), pool: pool}
	build := func(ctx context.Context) (http.Handler, *x509.CertPool, error) {
		if err := rebuild(ctx, mgr.GetAPIReader(), pool); err != nil {
			return nil, nil, err
		}
		pending, err := j.load(ctx)
		if err != nil {
			return nil, nil, err
		}
		pool.RestorePending(pending)
		rebuilt.Store(true)
		log.FromContext(ctx).Info("mac pool rebuilt", "range", r.String(), "macs", pool.Len(), "pending", len(pending))
		return Handler(pool, namespaceReader{cache: mgr.GetClient(), api: mgr.GetAPIReader()}, j.save), nil, nil
	}
	if err := mgr.Add(j); err != nil {
		return fmt.Errorf("adding the reservation journal: %w", err)
	}
	// The server builds its handler, and so rebuilds the pool, on the
	// elected replica only; readiness passes once it serves.
	return manager.ServeTLS(mgr, "kubemacpool", s.certDir, build)
}

// expiryPeriod checks for stale reservations a few times per wait time.
func expiryPeriod(wait time.Duration) time.Duration {
	if p := wait / 4; p >= time.Second {
		return p
	}
	return time.Second
}

// namespaceReader reads a namespace from the cache and, when the cache has
// not seen it yet, from the API server: a VM created right after its
// namespace must not be refused because the watch is a moment behind.
type namespaceReader struct {
	cache, api crclient.Reader
}

// Get reads obj from the cache, else from the API server.
func (r namespaceReader) Get(ctx context.Context, key crclient.ObjectKey, obj crclient.Object, opts ...crclient.GetOption) error {
	err := r.cache.Get(ctx, key, obj, opts...)
	if apierrors.IsNotFound(err) {
		return r.api.Get(ctx, key, obj, opts...)
	}
	return err
}

// List lists from the cache.
func (r namespaceReader) List(ctx context.Context, list crclient.ObjectList, opts ...crclient.ListOption) error {
	return r.cache.List(ctx, list, opts...)
}

// Handler serves the VirtualMachine webhook, reading namespaces through r;
// persist keeps the reservations before each answer.
func Handler(pool *kubemacpool.Pool, r crclient.Reader, persist func(context.Context) error) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(kubemacpool.MutatePath, &webhook.Admission{Handler: &kubemacpool.VMMutator{Pool: pool, Namespaces: r, Mode: kubemacpool.OptOut, Persist: persist}})
	return mux
}

// rebuild fills the pool from every VM stored, read from the API server
// itself so that none admitted before this start is missed.
func rebuild(ctx context.Context, r crclient.Reader, pool *kubemacpool.Pool) error {
	vms := &kubevirtv1.VirtualMachineList{}
	if err := r.List(ctx, vms); err != nil {
		return fmt.Errorf("listing virtual machines to rebuild the mac pool: %w", err)
	}
	nss := &corev1.NamespaceList{}
	if err := r.List(ctx, nss); err != nil {
		return fmt.Errorf("listing namespaces to rebuild the mac pool: %w", err)
	}
	labels := map[string]map[string]string{}
	for _, ns := range nss.Items {
		labels[ns.Name] = ns.Labels
	}
	managed := func(ns string) bool { return kubemacpool.NamespaceManaged(kubemacpool.OptOut, labels[ns]) }
	pool.Rebuild(vms.Items, managed)
	return nil
}
