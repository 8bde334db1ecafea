// Package worker is the composition root of Temporal workers: which
// workflows and activities run on which task queue.
package worker

import (
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/activities/cdicron"
	hcoacts "github.com/virtflow/virtflow/activities/hco"
	"github.com/virtflow/virtflow/activities/storage"
	cdiwf "github.com/virtflow/virtflow/workflows/cdi"
	hcowf "github.com/virtflow/virtflow/workflows/hco"
)

// ControlTaskQueue carries control-plane workflows and activities.
const ControlTaskQueue = "virtflow-control"

// DefaultNamespace is the Temporal namespace virtflow uses.
const DefaultNamespace = "virtflow"

// NewControl returns a worker for ControlTaskQueue with every control-plane
// workflow and activity registered. kube must know every virtflow kind.
func NewControl(c client.Client, kube crclient.Client) sdkworker.Worker {
	w := sdkworker.New(c, ControlTaskQueue, sdkworker.Options{})
	hcowf.Register(w, &hcoacts.Activities{Client: kube})
	cdiwf.RegisterWorkflows(w)
	cdiwf.RegisterCronActivities(w, &cdicron.Activities{Client: kube})
	return w
}

// NodeTaskQueue is the task queue of a node's worker.
func NodeTaskQueue(node string) string { return cdiwf.NodeTaskQueue(node) }

// NewNode returns the worker of one node: the node-local disk activities
// of imports and uploads, run where the volume is; upload servers listen
// on nodeIP.
func NewNode(c client.Client, node, nodeIP string, kube crclient.Client) sdkworker.Worker {
	// Heartbeats carry an import's progress and resume point, and its
	// cancellation comes back on them: send them every second or two, not
	// at the SDK's default of up to 80% of the heartbeat timeout.
	w := sdkworker.New(c, cdiwf.NodeTaskQueue(node), sdkworker.Options{
		MaxHeartbeatThrottleInterval: 2 * time.Second, DefaultHeartbeatThrottleInterval: 2 * time.Second,
	})
	cdiwf.RegisterNodeActivities(w, &storage.Activities{Client: kube, NodeIP: nodeIP})
	return w
}
