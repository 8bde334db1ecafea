package temporal

import (
	enumspb "go.temporal.io/api/enums/v1"
	schedulepb "go.temporal.io/api/schedule/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/server/common/tasktoken"

	"github.com/virtflow/virtflow/contracts/temporalauth"
)

// workerCall decides the calls of a worker: taking tasks from a queue,
// answering them and reporting on itself. handled is false for a call
// that is not a worker's.
func workerCall(g temporalauth.Grant, method string, req any) (ok, handled bool) {
	worker := len(g.Poll) > 0
	switch method {
	case "PollWorkflowTaskQueue":
		r, _ := req.(*workflowservice.PollWorkflowTaskQueueRequest)
		return r != nil && g.WorkflowTasks && pollAllowed(g, r.GetTaskQueue()), true
	case "PollActivityTaskQueue":
		r, _ := req.(*workflowservice.PollActivityTaskQueueRequest)
		return r != nil && pollAllowed(g, r.GetTaskQueue()), true
	case "RespondWorkflowTaskCompleted", "RespondWorkflowTaskFailed", "RespondQueryTaskCompleted", "ResetStickyTaskQueue":
		return worker && g.WorkflowTasks, true
	case "RecordActivityTaskHeartbeat", "RespondActivityTaskCompleted", "RespondActivityTaskFailed", "RespondActivityTaskCanceled":
		return worker && activityTokenAllowed(g, req), true
	case "RecordActivityTaskHeartbeatById", "RespondActivityTaskCompletedById", "RespondActivityTaskFailedById", "RespondActivityTaskCanceledById":
		// These name the activity by workflow and activity ID, not by a
		// token of its type: only a worker allowed every activity.
		return worker && len(g.ActivityTypePrefixes) == 0, true
	case "ShutdownWorker":
		r, _ := req.(*workflowservice.ShutdownWorkerRequest)
		return worker && r != nil && (r.GetTaskQueue() == "" || g.Polls(r.GetTaskQueue())), true
	case "RecordWorkerHeartbeat":
		return worker, true
	}
	return false, false
}

// pollAllowed reports whether g may take tasks from q. A sticky queue
// counts as the normal queue its worker polls; its own name is in the
// histories every reader sees, so only a worker that runs workflow code
// may poll one, or it could take the control worker's workflow tasks.
func pollAllowed(g temporalauth.Grant, q *taskqueuepb.TaskQueue) bool {
	if q.GetKind() == enumspb.TASK_QUEUE_KIND_STICKY {
		return g.WorkflowTasks && g.Polls(q.GetNormalName())
	}
	return g.Polls(q.GetName())
}

// activityTokenAllowed reports whether the activity task the request's
// token names is of a type g may answer.
func activityTokenAllowed(g temporalauth.Grant, req any) bool {
	if len(g.ActivityTypePrefixes) == 0 {
		return true
	}
	r, ok := req.(interface{ GetTaskToken() []byte })
	if !ok {
		return false
	}
	token, err := tasktoken.NewSerializer().Deserialize(r.GetTaskToken())
	if err != nil {
		return false
	}
	return g.AnswersActivity(token.GetActivityType())
}

// ownerCall decides an operator's calls on its own workflows and
// schedules, by what the request names.
func ownerCall(g temporalauth.Grant, req any) bool {
	switch r := req.(type) {
	case *workflowservice.StartWorkflowExecutionRequest:
		// An eager start hands the starter the first workflow task, and
		// callbacks have the server call out: both are workers' and the
		// admin's business.
		return g.Starts(r.GetWorkflowType().GetName(), r.GetWorkflowId(), r.GetTaskQueue().GetName()) &&
			!r.GetRequestEagerExecution() && len(r.GetCompletionCallbacks()) == 0
	case *workflowservice.SignalWithStartWorkflowExecutionRequest:
		return g.Starts(r.GetWorkflowType().GetName(), r.GetWorkflowId(), r.GetTaskQueue().GetName())
	case *workflowservice.SignalWorkflowExecutionRequest:
		return g.Signals(r.GetWorkflowExecution().GetWorkflowId())
	case *workflowservice.RequestCancelWorkflowExecutionRequest:
		return g.Cancels(r.GetWorkflowExecution().GetWorkflowId())
	case *workflowservice.TerminateWorkflowExecutionRequest:
		return g.Terminates(r.GetWorkflowExecution().GetWorkflowId())
	case *workflowservice.CreateScheduleRequest:
		return g.Schedules(r.GetScheduleId()) && schedulesOwn(g, r.GetSchedule())
	case *workflowservice.UpdateScheduleRequest:
		return g.Schedules(r.GetScheduleId()) && schedulesOwn(g, r.GetSchedule())
	case *workflowservice.PatchScheduleRequest:
		return g.Schedules(r.GetScheduleId())
	case *workflowservice.DeleteScheduleRequest:
		return g.Schedules(r.GetScheduleId())
	}
	return false
}

// schedulesOwn reports whether what the schedule starts is a workflow g
// could start itself: the scheduler starts it with the server's identity.
func schedulesOwn(g temporalauth.Grant, s *schedulepb.Schedule) bool {
	wf := s.GetAction().GetStartWorkflow()
	return wf != nil && g.Starts(wf.GetWorkflowType().GetName(), wf.GetWorkflowId(), wf.GetTaskQueue().GetName())
}
