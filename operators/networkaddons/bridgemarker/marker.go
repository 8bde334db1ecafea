package bridgemarker

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// Marker keeps one Node's bridge resources in step with its bridges.
type Marker struct {
	Nodes corev1client.NodeInterface
	// Node is the Node's name.
	Node string
	// List lists the node's bridges; Bridges when nil.
	List func() ([]string, error)
	// ready is set once the Node showed the node's bridges.
	ready atomic.Bool
}

// Ready says whether the Node has shown this node's bridges since start.
func (m *Marker) Ready() bool { return m.ready.Load() }

// Update reads the Node and patches its status when its bridge resources
// differ from the bridges. The patch tests nothing: a concurrent writer of
// other resources (the kubelet) merges, and a racing change of a bridge
// resource is corrected by the next update.
func (m *Marker) Update(ctx context.Context) error {
	list := m.List
	if list == nil {
		list = Bridges
	}
	bridges, err := list()
	if err != nil {
		return err
	}
	node, err := m.Nodes.Get(ctx, m.Node, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading node %s: %w", m.Node, err)
	}
	ops := Patch(node, bridges)
	if len(ops) > 0 {
		body, err := json.Marshal(ops)
		if err != nil {
			return fmt.Errorf("encoding the patch of node %s: %w", m.Node, err)
		}
		if _, err := m.Nodes.Patch(ctx, m.Node, types.JSONPatchType, body, metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("publishing bridges %v on node %s: %w", bridges, m.Node, err)
		}
	}
	m.ready.Store(true)
	return nil
}

// Run updates every interval until ctx ends; a failed update is reported
// and tried again at the next.
func (m *Marker) Run(ctx context.Context, interval time.Duration, report func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := m.Update(ctx); err != nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
