package temporal

import (
	"context"
	"crypto/x509/pkix"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	schedulepb "go.temporal.io/api/schedule/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	tokenspb "go.temporal.io/server/api/token/v1"
	"go.temporal.io/server/common/api"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/tasktoken"

	"github.com/virtflow/virtflow/contracts/temporalauth"
)

const (
	control = temporalauth.ControlTaskQueue
	ns      = temporalauth.Namespace
)

// call is one request to the frontend.
type call struct {
	name   string
	method string
	req    any
}

func wfCall(method string, req any) call {
	return call{name: method, method: api.WorkflowServicePrefix + method, req: req}
}

func named(name string, c call) call { c.name = name; return c }

func poll(queue string) call {
	return named("poll "+queue, wfCall("PollActivityTaskQueue", &workflowservice.PollActivityTaskQueueRequest{Namespace: ns, TaskQueue: &taskqueuepb.TaskQueue{Name: queue}}))
}

func pollWorkflows(queue string) call {
	q := &taskqueuepb.TaskQueue{Name: queue}
	return named("poll workflow tasks of "+queue, wfCall("PollWorkflowTaskQueue", &workflowservice.PollWorkflowTaskQueueRequest{Namespace: ns, TaskQueue: q}))
}

func pollSticky(normal string) call {
	q := &taskqueuepb.TaskQueue{Name: "host:1234", Kind: enumspb.TASK_QUEUE_KIND_STICKY, NormalName: normal}
	return named("poll sticky of "+normal, wfCall("PollWorkflowTaskQueue", &workflowservice.PollWorkflowTaskQueueRequest{Namespace: ns, TaskQueue: q}))
}

func startCall(wf, id, queue string) call {
	return named("start "+wf+" "+id+" on "+queue, wfCall("StartWorkflowExecution", &workflowservice.StartWorkflowExecutionRequest{
		Namespace: ns, WorkflowId: id, WorkflowType: &commonpb.WorkflowType{Name: wf}, TaskQueue: &taskqueuepb.TaskQueue{Name: queue},
	}))
}

func exec(id string) *commonpb.WorkflowExecution { return &commonpb.WorkflowExecution{WorkflowId: id} }

func signal(id string) call {
	return named("signal "+id, wfCall("SignalWorkflowExecution", &workflowservice.SignalWorkflowExecutionRequest{Namespace: ns, WorkflowExecution: exec(id)}))
}

func cancel(id string) call {
	return named("cancel "+id, wfCall("RequestCancelWorkflowExecution", &workflowservice.RequestCancelWorkflowExecutionRequest{Namespace: ns, WorkflowExecution: exec(id)}))
}

func terminate(id string) call {
	return named("terminate "+id, wfCall("TerminateWorkflowExecution", &workflowservice.TerminateWorkflowExecutionRequest{Namespace: ns, WorkflowExecution: exec(id)}))
}

func completeActivity(t *testing.T, activityType string) call {
	token, err := tasktoken.NewSerializer().Serialize(&tokenspb.Task{WorkflowId: "cdi-import-u", ActivityType: activityType})
	require.NoError(t, err)
	return named("complete "+activityType, wfCall("RespondActivityTaskCompleted", &workflowservice.RespondActivityTaskCompletedRequest{Namespace: ns, TaskToken: token}))
}

func createSchedule(id, wf, wfID string) call {
	action := &schedulepb.ScheduleAction{Action: &schedulepb.ScheduleAction_StartWorkflow{StartWorkflow: &workflowpb.NewWorkflowExecutionInfo{
		WorkflowId: wfID, WorkflowType: &commonpb.WorkflowType{Name: wf}, TaskQueue: &taskqueuepb.TaskQueue{Name: control},
	}}}
	return named("schedule "+id+" of "+wf, wfCall("CreateSchedule", &workflowservice.CreateScheduleRequest{Namespace: ns, ScheduleId: id, Schedule: &schedulepb.Schedule{Action: action}}))
}

var (
	describe       = wfCall("DescribeWorkflowExecution", &workflowservice.DescribeWorkflowExecutionRequest{Namespace: ns, Execution: exec("hco-install-u")})
	history        = wfCall("GetWorkflowExecutionHistory", &workflowservice.GetWorkflowExecutionHistoryRequest{Namespace: ns, Execution: exec("cdi-import-u")})
	list           = wfCall("ListWorkflowExecutions", &workflowservice.ListWorkflowExecutionsRequest{Namespace: ns})
	describeNS     = wfCall("DescribeNamespace", &workflowservice.DescribeNamespaceRequest{Namespace: ns})
	systemInfo     = wfCall("GetSystemInfo", &workflowservice.GetSystemInfoRequest{})
	health         = call{name: "grpc health", method: "/grpc.health.v1.Health/Check"}
	completeWFTask = wfCall("RespondWorkflowTaskCompleted", &workflowservice.RespondWorkflowTaskCompletedRequest{Namespace: ns})
	heartbeatByID  = wfCall("RecordActivityTaskHeartbeatById", &workflowservice.RecordActivityTaskHeartbeatByIdRequest{Namespace: ns, WorkflowId: "hco-install-u"})
	updateNS       = wfCall("UpdateNamespace", &workflowservice.UpdateNamespaceRequest{Namespace: ns})
	deleteNS       = call{name: "delete namespace", method: api.OperatorServicePrefix + "DeleteNamespace"}
	listSearchAttr = call{name: "list search attributes", method: api.OperatorServicePrefix + "ListSearchAttributes"}
	adminCall      = call{name: "admin service", method: api.AdminServicePrefix + "DescribeMutableState"}
	eagerStart     = named("eager start", wfCall("StartWorkflowExecution", &workflowservice.StartWorkflowExecutionRequest{
		Namespace: ns, WorkflowId: "hco-install-u", WorkflowType: &commonpb.WorkflowType{Name: "hco.InstallHyperConverged"},
		TaskQueue: &taskqueuepb.TaskQueue{Name: control}, RequestEagerExecution: true,
	}))
)

func decideAs(identity string, c call) bool {
	a := newAuthorizer([]string{ns}, nil)
	claims, err := claimMapper{}.GetClaims(&authorization.AuthInfo{TLSSubject: &pkix.Name{CommonName: identity}})
	if err != nil {
		return false
	}
	r, err := a.Authorize(context.Background(), claims, &authorization.CallTarget{APIName: c.method, Namespace: namespaceOf(c.req), Request: c.req})
	return err == nil && r.Decision == authorization.DecisionAllow
}

func namespaceOf(req any) string {
	if r, ok := req.(interface{ GetNamespace() string }); ok {
		return r.GetNamespace()
	}
	return ""
}
