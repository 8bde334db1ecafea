package kubemacpool

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/networkaddons/kubemacpool"
)

// journal keeps the pool's reservations in kubemacpool-vm-configmap: the
// webhook's answer waits for it, so a MAC promised to a VM still being
// stored is not offered again by a kubemacpool restarted meanwhile.
type journal struct {
	c    crclient.Client
	api  crclient.Reader
	ns   string
	pool *kubemacpool.Pool
	mu   sync.Mutex
	last map[string]string
}

// save writes the pool's reservations, if they changed since the last save.
func (j *journal) save(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	data, err := kubemacpool.EncodeReservations(j.pool.Pending())
	if err != nil {
		return err
	}
	if j.last != nil && maps.Equal(data, j.last) {
		return nil
	}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: j.ns, Name: kubemacpool.JournalConfigMap}, Data: data}
	if err := j.c.Patch(ctx, cm, crclient.Apply, crclient.FieldOwner("kubemacpool"), crclient.ForceOwnership); err != nil {
		return fmt.Errorf("persisting the mac reservations: %w", err)
	}
	j.last = data
	return nil
}

// load reads the reservations a previous run left.
func (j *journal) load(ctx context.Context) ([]kubemacpool.Reservation, error) {
	cm := &corev1.ConfigMap{}
	err := j.api.Get(ctx, crclient.ObjectKey{Namespace: j.ns, Name: kubemacpool.JournalConfigMap}, cm)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the mac reservations: %w", err)
	}
	return kubemacpool.DecodeReservations(cm.Data), nil
}

// Start saves what the controller and the expiry settled, every second,
// until ctx ends.
func (j *journal) Start(ctx context.Context) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			_ = j.save(ctx) // retried on the next tick; the webhook's saves report errors
		}
	}
}

// NeedLeaderElection: only the elected replica holds the pool.
func (j *journal) NeedLeaderElection() bool { return true }
