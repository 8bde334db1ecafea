// Package worker is the composition root of Temporal workers: which
// workflows and activities run on which task queue.
package worker

import (
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcoacts "github.com/virtflow/virtflow/activities/hco"
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
	return w
}
