package temporalauth

import (
	"sort"
	"strings"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/virt"
)

// Grant is what one identity may do in Namespace; a call it does not
// grant is refused.
type Grant struct {
	// All grants every call, in every namespace.
	All bool
	// Read grants the calls Temporal marks read-only: describing,
	// listing, counting and querying workflows, reading their histories,
	// schedules, task queues and the namespace.
	Read bool
	// Poll names the task queues whose tasks it may take; an entry
	// ending in "*" names every queue with that prefix.
	Poll []string
	// WorkflowTasks lets it take (from its queues, sticky ones too) and
	// answer workflow and query tasks: it runs workflow code. Without
	// it, a worker polls activity tasks only.
	WorkflowTasks bool
	// ActivityTypePrefixes, when set, limit the activity tasks it may
	// answer and heartbeat to those of activity types with one of these
	// prefixes (a whole name is its own prefix), as the task's token
	// names them; none allows every activity task.
	ActivityTypePrefixes []string
	// Signal names the workflow IDs (prefixes) it may signal; "" is all.
	Signal []string
	// Cancel names the workflow IDs (prefixes) it may ask to cancel.
	Cancel []string
	// Owns is the kind of workflow it starts and stops; nil for none.
	Owns *Ownership
}

// Ownership is a kind of workflow an operator starts, signals, cancels
// and terminates, each on the control task queue.
type Ownership struct {
	// WorkflowTypePrefix begins the type of every workflow it starts.
	WorkflowTypePrefix string
	// WorkflowIDPrefix begins the ID of every workflow it starts or
	// stops.
	WorkflowIDPrefix string
	// TaskQueue is the only queue it starts workflows on.
	TaskQueue string
	// SchedulePrefix, when set, begins the ID of every schedule it
	// creates, changes or deletes; a schedule may only start the
	// workflows the identity could start itself.
	SchedulePrefix string
}

// policy is every identity's grant.
var policy = map[string]Grant{
	Admin: {All: true},
	// Its activities report progress to their own workflow; child
	// workflows and everything else it does go through the workflow tasks
	// it answers. No activity starts a workflow.
	ControlWorker: {Read: true, Poll: []string{ControlTaskQueue}, WorkflowTasks: true, Signal: []string{""}},
	// Its disk activities report progress to their CDI workflow; it runs
	// no workflow code (worker.NewNode starts no workflow poller). It
	// also answers a migration's node steps, never its control steps,
	// and the source's copy reports its counters to its migration.
	NodeWorker: {
		Read: true, Poll: []string{cdi.NodeTaskQueuePrefix + "*"},
		ActivityTypePrefixes: []string{DiskActivityPrefix, virt.PrepareTargetName, virt.MigrateDomainName, virt.ReadCopyName,
			virt.AbortMigrationName, virt.ResumeSourceName},
		Signal: []string{"cdi-", virt.MigrateWorkflowIDPrefix},
	},
	HCOOperator: {Read: true, Owns: &Ownership{WorkflowTypePrefix: "hco.", WorkflowIDPrefix: "hco-", TaskQueue: ControlTaskQueue}},
	CDIDeployment: {Read: true, Owns: &Ownership{
		WorkflowTypePrefix: "cdi.", WorkflowIDPrefix: "cdi-", TaskQueue: ControlTaskQueue, SchedulePrefix: "cdi-cron-",
	}},
	SSPOperator: {Read: true, Owns: &Ownership{WorkflowTypePrefix: "ssp.", WorkflowIDPrefix: "ssp-", TaskQueue: ControlTaskQueue}},
	// One migration workflow per VirtualMachineInstanceMigration.
	VirtController: {Read: true, Owns: &Ownership{WorkflowTypePrefix: "virt.", WorkflowIDPrefix: "virt-", TaskQueue: ControlTaskQueue}},
	// The console checks that the user may delete the object an
	// operation works for before it cancels it.
	Console:     {Read: true, Cancel: []string{""}},
	UploadProxy: {Read: true},
}

// DiskActivityPrefix begins the type of every disk activity, the only
// activities on a node's task queue.
const DiskActivityPrefix = "storage."

// AnswersActivity reports whether the grant covers answering an activity
// task of type typ.
func (g Grant) AnswersActivity(typ string) bool {
	if len(g.ActivityTypePrefixes) == 0 {
		return true
	}
	for _, p := range g.ActivityTypePrefixes {
		if strings.HasPrefix(typ, p) {
			return true
		}
	}
	return false
}

// GrantOf is identity's grant; false for an identity virtflow does not
// know, which may do nothing.
func GrantOf(identity string) (Grant, bool) {
	g, ok := policy[identity]
	return g, ok
}

// Identities are every identity Policy knows, sorted.
func Identities() []string {
	ids := make([]string, 0, len(policy))
	for id := range policy {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Polls reports whether the grant covers taking tasks from queue.
func (g Grant) Polls(queue string) bool {
	if queue == "" {
		return false
	}
	for _, q := range g.Poll {
		if prefix, ok := strings.CutSuffix(q, "*"); (ok && strings.HasPrefix(queue, prefix)) || q == queue {
			return true
		}
	}
	return false
}

// Signals reports whether the grant covers signalling workflow id.
func (g Grant) Signals(id string) bool {
	return hasPrefix(id, g.Signal) || g.Owns != nil && g.Owns.owned(id)
}

// Cancels reports whether the grant covers asking workflow id to cancel.
func (g Grant) Cancels(id string) bool {
	return hasPrefix(id, g.Cancel) || g.Owns != nil && g.Owns.owned(id)
}

// Terminates reports whether the grant covers terminating workflow id.
func (g Grant) Terminates(id string) bool { return g.Owns != nil && g.Owns.owned(id) }

// Starts reports whether the grant covers starting a workflow of type wf
// with ID id on queue.
func (g Grant) Starts(wf, id, queue string) bool {
	o := g.Owns
	return o != nil && o.owned(id) && wf != "" && strings.HasPrefix(wf, o.WorkflowTypePrefix) && queue == o.TaskQueue
}

// Schedules reports whether the grant covers the schedule id.
func (g Grant) Schedules(id string) bool {
	o := g.Owns
	return o != nil && o.SchedulePrefix != "" && id != "" && strings.HasPrefix(id, o.SchedulePrefix)
}

func (o *Ownership) owned(id string) bool {
	return id != "" && o.WorkflowIDPrefix != "" && strings.HasPrefix(id, o.WorkflowIDPrefix)
}

// hasPrefix reports whether id begins with one of prefixes; an empty
// prefix matches every non-empty id.
func hasPrefix(id string, prefixes []string) bool {
	if id == "" {
		return false
	}
	for _, p := range prefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}
