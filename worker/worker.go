// Package worker is the composition root of Temporal workers: which
// workflows and activities run on which task queue.
package worker

import (
	"crypto/ed25519"
	"runtime/debug"
	"time"

	"github.com/virtflow/virtflow/kube/mtls"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"k8s.io/client-go/rest"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/activities/cdicron"
	hcoacts "github.com/virtflow/virtflow/activities/hco"
	"github.com/virtflow/virtflow/activities/ssptasks"
	"github.com/virtflow/virtflow/activities/storage"
	virtacts "github.com/virtflow/virtflow/activities/virt"
	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/tasks"
	"github.com/virtflow/virtflow/tasks/catalog"
	cdiwf "github.com/virtflow/virtflow/workflows/cdi"
	hcowf "github.com/virtflow/virtflow/workflows/hco"
	sspwf "github.com/virtflow/virtflow/workflows/ssp"
	virtwf "github.com/virtflow/virtflow/workflows/virt"
)

// ControlTaskQueue carries control-plane workflows and activities.
const ControlTaskQueue = "virtflow-control"

// DefaultNamespace is the Temporal namespace virtflow uses.
const DefaultNamespace = "virtflow"

// DeploymentName names virtflow's workers in Temporal's worker deployments.
const DeploymentName = "virtflow"

// ControlOption adds what not every control worker runs.
type ControlOption func(*controlOptions)

type controlOptions struct {
	durableTasks *rest.Config
}

// WithDurableTasks has the worker run the durable Tekton tasks' activity:
// each task acts, through cfg's credentials, as the service account its
// CustomRun names, which cfg's user must be allowed to impersonate.
func WithDurableTasks(cfg *rest.Config) ControlOption {
	return func(o *controlOptions) { o.durableTasks = cfg }
}

// NewControl returns a worker for ControlTaskQueue with every control-plane
// workflow and activity registered (the durable tasks' activity only
// WithDurableTasks). kube must know every virtflow kind.
func NewControl(c client.Client, kube crclient.Client, opts ...ControlOption) sdkworker.Worker {
	var o controlOptions
	for _, opt := range opts {
		opt(&o)
	}
	// A cancelled durable task hears of it on a heartbeat: send them
	// every few seconds, not at up to 80% of the 30 s heartbeat timeout.
	w := sdkworker.New(c, ControlTaskQueue, sdkworker.Options{
		DeploymentOptions:            deployment(),
		MaxHeartbeatThrottleInterval: 5 * time.Second, DefaultHeartbeatThrottleInterval: 5 * time.Second,
	})
	hcowf.RegisterWorkflows(w)
	hco.RegisterActivities(w, &hcoacts.Activities{Client: kube})
	cdiwf.RegisterWorkflows(w)
	cdi.RegisterCronActivities(w, &cdicron.Activities{Client: kube})
	sspwf.RegisterWorkflows(w)
	virtwf.RegisterWorkflows(w)
	virt.RegisterControlActivities(w, &virtacts.Activities{Client: kube})
	if o.durableTasks != nil {
		// The task activity reports its attempts to its own workflow
		// through the worker's client.
		ssp.RegisterTaskActivities(w, &ssptasks.Activities{Client: kube, Config: o.durableTasks, Tasks: catalog.Tasks(), Defaults: tasks.WithDefaults, Signals: c})
	}
	return w
}

// NodeTaskQueue is the task queue of a node's worker.
func NodeTaskQueue(node string) string { return cdi.NodeTaskQueue(node) }

// NodeOption sets what a node worker's disk activities check their input
// against.
type NodeOption func(*storage.Activities)

// WithHostRoot is the node's hostpath root, the prefix of its storage
// pools' paths ("/" unless set): the disk activities write only volumes
// under it.
func WithHostRoot(root string) NodeOption {
	return func(a *storage.Activities) { a.HostRoot = root }
}

// WithUploadTLS has the node's upload servers take only clients holding a
// certificate of the CA in files (cdi-uploadproxy).
func WithUploadTLS(files *mtls.Files) NodeOption {
	return func(a *storage.Activities) { a.UploadTLS = files }
}

// WithUploadKey is cdi-apiserver's upload token verification key, read
// for each upload: the node's upload servers take only uploads with their
// DataVolume's token. Without it the node takes no upload.
func WithUploadKey(key func() (ed25519.PublicKey, error)) NodeOption {
	return func(a *storage.Activities) { a.UploadKey = key }
}

// NewNode returns the worker of one node: the node-local disk activities
// of imports, uploads and clones, run where the volume is; upload servers
// listen on nodeIP; finished disk images are handed to diskOwner (user and
// group), the launchers' user, unless it is 0. The activities find each
// volume through kube, which must read claims, volumes, DataVolumes,
// VolumeImportSources, DataSources, namespaces and CDIConfig, and create
// SubjectAccessReviews.
func NewNode(c client.Client, node, nodeIP string, diskOwner int, kube crclient.Client, opts ...NodeOption) sdkworker.Worker {
	// Heartbeats carry an import's resume point, and its cancellation
	// comes back on them: send them every second or two, not at the SDK's
	// default of up to 80% of the heartbeat timeout.
	// It runs no workflow code, and Temporal refuses it workflow tasks:
	// no workflow poller.
	w := sdkworker.New(c, cdi.NodeTaskQueue(node), sdkworker.Options{
		DeploymentOptions:            deployment(),
		MaxHeartbeatThrottleInterval: 2 * time.Second, DefaultHeartbeatThrottleInterval: 2 * time.Second,
		DisableWorkflowWorker: true,
	})
	// The disk activities report each attempt's progress to their own
	// workflow through the worker's client.
	acts := &storage.Activities{Client: kube, NodeName: node, NodeIP: nodeIP, DiskUID: diskOwner, DiskGID: diskOwner, Signals: c}
	for _, opt := range opts {
		opt(acts)
	}
	cdi.RegisterDiskActivities(w, acts)
	return w
}

// deployment names the build a worker runs, so the Web UI and `temporal
// workflow describe` tell which build completed each workflow task. It
// does not opt into worker versioning: virtflow versions workflow changes
// with workflow.GetVersion (see the README's development section).
func deployment() sdkworker.DeploymentOptions {
	return sdkworker.DeploymentOptions{Version: sdkworker.WorkerDeploymentVersion{DeploymentName: DeploymentName, BuildID: BuildID()}}
}

// BuildID is the VCS revision the binary was built from ("-dirty" when the
// tree had changes), or "dev" when the build recorded none.
func BuildID() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
