package kubenode

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// WaitReady waits until the Node is registered and Ready, failing early if
// a node process dies.
func (n *Node) WaitReady(ctx context.Context, cs kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	last := "not registered"
	for {
		if err := n.Healthy(); err != nil {
			return err
		}
		node, err := cs.CoreV1().Nodes().Get(ctx, n.cfg.Name, metav1.GetOptions{})
		if err == nil {
			last = readiness(node)
			if last == "" {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %s is not Ready (%s); see %s", n.cfg.Name, last, n.LogDir())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// readiness is empty for a Ready node, else why it is not.
func readiness(node *corev1.Node) string {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status == corev1.ConditionTrue {
				return ""
			}
			return c.Reason + ": " + c.Message
		}
	}
	return "no Ready condition yet"
}
