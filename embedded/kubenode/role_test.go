package kubenode

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestLabelWorkerAddsTheRoleAndKeepsTheNodesLabels(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: "virtflow-node-2", Labels: map[string]string{"kubernetes.io/hostname": "virtflow-node-2"},
	}})
	n := &Node{cfg: Config{Name: "virtflow-node-2"}}
	for range 2 {
		require.NoError(t, n.LabelWorker(ctx, cs), "labelling again changes nothing")
		got, err := cs.CoreV1().Nodes().Get(ctx, "virtflow-node-2", metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, map[string]string{"kubernetes.io/hostname": "virtflow-node-2", LabelRoleWorker: ""}, got.Labels)
	}
}

func TestLabelWorkerFailsForANodeNotRegistered(t *testing.T) {
	n := &Node{cfg: Config{Name: "virtflow-node-3"}}
	err := n.LabelWorker(context.Background(), fake.NewClientset())
	require.ErrorContains(t, err, "labelling node virtflow-node-3 a worker")
}
