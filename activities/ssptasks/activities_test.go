package ssptasks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/ssp"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// makeConfigMap is a catalog task that creates or adopts the config map
// its params name, as the real tasks create or adopt their VM, and
// reports it.
var makeConfigMap = stepenv.Task{Name: "make-config-map", Run: func(ctx context.Context, env stepenv.Env, p stepenv.Params) error {
	env.Alive("creating " + p.String("name"))
	env.Logf("creating config map %s/%s", env.Namespace, p.String("name"))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace, Name: p.String("name")},
		Data: map[string]string{"keys": fmt.Sprint(p.Array("keys"))}}
	if err := env.Client.Create(ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	if err := env.Results.Write("name", cm.Name); err != nil {
		return err
	}
	return env.Results.Write("impersonating", env.Config.Impersonate.UserName)
}}

// failing is a catalog task that fails with the error it is given.
func failing(err error) stepenv.Task {
	return stepenv.Task{Name: "fail", Run: func(context.Context, stepenv.Env, stepenv.Params) error { return err }}
}

func setup(t *testing.T, tasks ...stepenv.Task) (*Activities, crclient.Client, *testsuite.TestActivityEnvironment) {
	t.Helper()
	s, err := kubescheme.New()
	require.NoError(t, err)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(customRunGVK, meta.RESTScopeNamespace)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	c := fake.NewClientBuilder().WithScheme(s).WithRESTMapper(mapper).Build()
	catalog := map[string]stepenv.Task{}
	for _, task := range tasks {
		catalog[task.Name] = task
	}
	a := &Activities{
		Client: c, Config: &rest.Config{Host: "https://api.example:6443"}, Tasks: catalog,
		NewClient: func(*rest.Config) (crclient.Client, error) { return c, nil },
		Defaults: func(task string, given stepenv.Params) (stepenv.Params, error) {
			if given.Strings["name"] == "" {
				return stepenv.Params{}, fmt.Errorf("invalid input params for task %s: missing values for these params which have no default values: [name]", task)
			}
			given.Arrays = map[string][]string{"keys": {"default"}}
			return given, nil
		},
		HeartbeatEvery: 10 * time.Millisecond,
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	return a, c, env
}

// run runs req in the workflow of a CustomRun of its task, service
// account and params, as the controller starts it, unless req names its
// CustomRun.
func run(env *testsuite.TestActivityEnvironment, a *Activities, req ssp.TaskRequest) (ssp.TaskResult, error) {
	if req.CustomRun == "" {
		sa := req.ServiceAccount
		cr := newCustomRun(req.Namespace, "run-"+req.Task, ssp.KindDurableTask, req.Task, sa, req.Params)
		if err := a.Client.Create(context.Background(), cr); err != nil && !apierrors.IsAlreadyExists(err) {
			return ssp.TaskResult{}, err
		}
		req.CustomRun, req.CustomRunUID = cr.GetName(), string(cr.GetUID())
	}
	a.executionID = func(context.Context) string { return ssp.TaskWorkflowID(req.CustomRunUID) }
	v, err := env.ExecuteActivity(a.RunTaskStep, req)
	if err != nil {
		return ssp.TaskResult{}, err
	}
	var res ssp.TaskResult
	return res, v.Get(&res)
}

var cmReq = ssp.TaskRequest{Task: "make-config-map", Namespace: "vms", ServiceAccount: "maker",
	Params: ssp.Params{Strings: map[string]string{"name": "cm1"}}}

func TestRunTaskStepTwiceLeavesOneObjectAndActsAsTheServiceAccount(t *testing.T) {
	a, c, env := setup(t, makeConfigMap)
	for i := 0; i < 2; i++ {
		res, err := run(env, a, cmReq)
		require.NoError(t, err)
		require.Equal(t, map[string]string{"name": "cm1", "impersonating": "system:serviceaccount:vms:maker"}, res.Results)
	}
	list := &corev1.ConfigMapList{}
	require.NoError(t, c.List(context.Background(), list))
	require.Len(t, list.Items, 1)
	require.Equal(t, "[default]", list.Items[0].Data["keys"], "the task's defaults were filled in")
	require.Empty(t, a.Config.Impersonate.UserName, "the worker's own configuration is left alone")
}

func TestRunTaskStepActsAsTheDefaultServiceAccountWhenNoneIsNamed(t *testing.T) {
	a, _, env := setup(t, makeConfigMap)
	req := cmReq
	req.ServiceAccount = ""
	res, err := run(env, a, req)
	require.NoError(t, err)
	require.Equal(t, "system:serviceaccount:vms:default", res.Results["impersonating"])
}

func requireAppError(t *testing.T, err error, typ string, nonRetryable bool) *temporal.ApplicationError {
	t.Helper()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.Equal(t, typ, app.Type())
	require.Equal(t, nonRetryable, app.NonRetryable(), "non-retryable")
	return app
}

func TestRunTaskStepRejectsAnUnknownTaskNamingTheKnownOnes(t *testing.T) {
	a, _, env := setup(t, makeConfigMap, failing(nil))
	_, err := run(env, a, ssp.TaskRequest{Task: "create-vm", Namespace: "vms"})
	app := requireAppError(t, err, ssp.ErrTypeUnknownTask, true)
	require.Equal(t, `no durable task "create-vm": the durable tasks are fail, make-config-map`, app.Message())
}

func TestRunTaskStepRejectsParamsTheTaskDeclarationRejects(t *testing.T) {
	a, _, env := setup(t, makeConfigMap)
	_, err := run(env, a, ssp.TaskRequest{Task: "make-config-map", Namespace: "vms"})
	app := requireAppError(t, err, ssp.ErrTypeInvalidParams, true)
	require.Contains(t, app.Message(), "missing values for these params which have no default values: [name]")
}

func TestRunTaskStepFailsForGoodWithTheTasksMessage(t *testing.T) {
	a, _, env := setup(t, failing(errors.New(`templates.template.openshift.io "nope" not found`)))
	_, err := run(env, a, ssp.TaskRequest{Task: "fail", Namespace: "vms", Params: cmReq.Params})
	app := requireAppError(t, err, ssp.ErrTypeTaskFailed, true)
	require.Equal(t, `templates.template.openshift.io "nope" not found`, app.Message())
}

func TestRunTaskStepRetriesWhenTheAPIServerDidNotServe(t *testing.T) {
	a, _, env := setup(t, failing(fmt.Errorf("creating VM: %w", apierrors.NewServiceUnavailable("etcd is restarting"))))
	_, err := run(env, a, ssp.TaskRequest{Task: "fail", Namespace: "vms", Params: cmReq.Params})
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.False(t, app.NonRetryable())
	require.NotEqual(t, ssp.ErrTypeTaskFailed, app.Type())
}

func TestTransientKnowsConflictsAndUnreachableServers(t *testing.T) {
	require.True(t, transient(apierrors.NewConflict(schema.GroupResource{Resource: "virtualmachines"}, "vm1", errors.New("changed"))))
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	require.True(t, transient(fmt.Errorf("getting template: %w", refused)))
	require.False(t, transient(apierrors.NewForbidden(schema.GroupResource{Resource: "virtualmachines"}, "vm1", errors.New("no"))))
}

func TestRunTaskStepWithAnEmptyCatalogSaysThereAreNone(t *testing.T) {
	a, _, env := setup(t)
	_, err := run(env, a, ssp.TaskRequest{Task: "cleanup-vm", Namespace: "vms"})
	app := requireAppError(t, err, ssp.ErrTypeUnknownTask, true)
	require.Equal(t, `no durable task "cleanup-vm": there are none`, app.Message())
}
