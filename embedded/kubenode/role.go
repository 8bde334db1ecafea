package kubenode

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// LabelRoleWorker is the role label OpenShift gives the nodes that run
// workloads. HCO counts the nodes that carry it: two make the
// infrastructure highly available, and VMs then live-migrate off a
// drained node by default.
const LabelRoleWorker = "node-role.kubernetes.io/worker"

// LabelWorker marks the registered Node a worker. The kubelet cannot set
// it itself: it refuses node-role.kubernetes.io labels in --node-labels,
// and NodeRestriction forbids a node to add them, so the admin adds it
// once the Node is there, as a cluster's installer does. A merge of the
// label it already has changes nothing, so every start applies it.
func (n *Node) LabelWorker(ctx context.Context, cs kubernetes.Interface) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{LabelRoleWorker: ""}}})
	if err != nil {
		return fmt.Errorf("encoding the worker label: %w", err)
	}
	if _, err := cs.CoreV1().Nodes().Patch(ctx, n.cfg.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("labelling node %s a worker: %w", n.cfg.Name, err)
	}
	return nil
}
