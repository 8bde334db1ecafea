package ssptasks

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/virtflow/virtflow/contracts/ssp"
)

var customRunGVK = schema.FromAPIVersionAndKind(ssp.CustomRunAPIVersion, ssp.CustomRunKind)

// newCustomRun is a CustomRun of a durable task or pipeline, as Tekton
// creates it for a PipelineTask; its UID is "uid-" and its name.
func newCustomRun(ns, name, kind, ref, sa string, p ssp.Params) *unstructured.Unstructured {
	var params []any
	for k, v := range p.Strings {
		params = append(params, map[string]any{"name": k, "value": v})
	}
	for k, v := range p.Arrays {
		arr := make([]any, len(v))
		for i, s := range v {
			arr[i] = s
		}
		params = append(params, map[string]any{"name": k, "value": arr})
	}
	spec := map[string]any{"customRef": map[string]any{"apiVersion": ssp.APIVersion, "kind": kind, "name": ref}, "params": params}
	if sa != "" {
		spec["serviceAccountName"] = sa
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(customRunGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetUID(types.UID("uid-" + name))
	return u
}

// A durable task acts as its CustomRun's service account, whatever its
// input says: a request naming another, a CustomRun that is not there or
// not the workflow's, or another task or params, is refused and runs
// nothing.
func TestRunTaskStepTakesItsIdentityFromItsCustomRun(t *testing.T) {
	a, c, env := setup(t, makeConfigMap)
	ctx := context.Background()
	own := newCustomRun("vms", "deploy", ssp.KindDurableTask, "make-config-map", "maker", cmReq.Params)
	pipeline := newCustomRun("vms", "pipeline", ssp.KindDurablePipeline, ssp.TemplatePipelineName, "", ssp.Params{})
	done := newCustomRun("vms", "done", ssp.KindDurableTask, "make-config-map", "maker", cmReq.Params)
	require.NoError(t, unstructured.SetNestedField(done.Object, "2026-01-01T00:00:00Z", "status", "completionTime"))
	for _, cr := range []*unstructured.Unstructured{own, pipeline, done} {
		require.NoError(t, c.Create(ctx, cr))
	}
	named := func(cr string, change func(*ssp.TaskRequest)) ssp.TaskRequest {
		req := cmReq
		req.CustomRun, req.CustomRunUID = cr, "uid-"+cr
		change(&req)
		return req
	}
	for name, tc := range map[string]struct {
		req  ssp.TaskRequest
		want string
	}{
		"another service account": {named("deploy", func(r *ssp.TaskRequest) { r.ServiceAccount = "console-admin" }),
			"the request acts as service account console-admin, CustomRun vms/deploy runs as maker"},
		"no service account for one": {named("deploy", func(r *ssp.TaskRequest) { r.ServiceAccount = "" }),
			"the request acts as service account default, CustomRun vms/deploy runs as maker"},
		"no such CustomRun": {named("gone", func(*ssp.TaskRequest) {}), "CustomRun vms/gone does not exist"},
		"another UID": {named("deploy", func(r *ssp.TaskRequest) { r.CustomRunUID = "uid-pipeline" }),
			"CustomRun vms/deploy is UID uid-deploy, not uid-pipeline"},
		"another namespace's": {named("deploy", func(r *ssp.TaskRequest) { r.Namespace = "kube-system" }),
			"CustomRun kube-system/deploy does not exist"},
		"another task": {named("pipeline", func(r *ssp.TaskRequest) { r.Task = "make-config-map" }),
			"CustomRun vms/pipeline (DurablePipeline server-deployer) does not run task make-config-map"},
		"other params": {named("deploy", func(r *ssp.TaskRequest) {
			r.Params = ssp.Params{Strings: map[string]string{"name": "kube-root-ca.crt"}}
		}),
			"the request's params are not CustomRun vms/deploy's"},
		"a finished run": {named("done", func(*ssp.TaskRequest) {}), "CustomRun vms/done has finished"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := run(env, a, tc.req)
			app := requireAppError(t, err, ssp.ErrTypeCustomRunMismatch, true)
			require.Contains(t, app.Message(), tc.want)
		})
	}
	a.executionID = func(context.Context) string { return "cdi-import-uid-deploy" }
	_, err := env.ExecuteActivity(a.RunTaskStep, named("deploy", func(*ssp.TaskRequest) {}))
	app := requireAppError(t, err, ssp.ErrTypeCustomRunMismatch, true)
	require.Equal(t, "task make-config-map runs in workflow cdi-import-uid-deploy, which serves no CustomRun", app.Message())
	a.executionID = func(context.Context) string { return ssp.TaskWorkflowID("uid-pipeline") }
	_, err = env.ExecuteActivity(a.RunTaskStep, named("deploy", func(*ssp.TaskRequest) {}))
	app = requireAppError(t, err, ssp.ErrTypeCustomRunMismatch, true)
	require.Equal(t, "the request names CustomRun UID uid-deploy, workflow ssp-task-uid-pipeline serves uid-pipeline", app.Message())

	res, err := run(env, a, named("deploy", func(*ssp.TaskRequest) {}))
	require.NoError(t, err)
	require.Equal(t, "system:serviceaccount:vms:maker", res.Results["impersonating"])
}

// A run started before requests named their CustomRun finds it by its
// workflow's ID; a pipeline's tasks act as the pipeline's CustomRun's
// service account, Tekton's default when it names none.
func TestRunTaskStepFindsTheCustomRunByItsWorkflow(t *testing.T) {
	a, c, env := setup(t, makeConfigMap)
	ctx := context.Background()
	require.NoError(t, c.Create(ctx, newCustomRun("vms", "deploy", ssp.KindDurableTask, "make-config-map", "maker", cmReq.Params)))
	a.executionID = func(context.Context) string { return ssp.TaskWorkflowID("uid-deploy") }
	v, err := env.ExecuteActivity(a.RunTaskStep, cmReq)
	require.NoError(t, err)
	var res ssp.TaskResult
	require.NoError(t, v.Get(&res))
	require.Equal(t, "system:serviceaccount:vms:maker", res.Results["impersonating"])

	a.Tasks[ssp.TaskCleanupVM] = makeConfigMap
	require.NoError(t, c.Create(ctx, newCustomRun("vms", "pipeline", ssp.KindDurablePipeline, ssp.TemplatePipelineName, "", ssp.Params{})))
	a.executionID = func(context.Context) string { return ssp.TaskWorkflowID("uid-pipeline") }
	req := ssp.TaskRequest{Task: ssp.TaskCleanupVM, Namespace: "vms", Params: cmReq.Params}
	v, err = env.ExecuteActivity(a.RunTaskStep, req)
	require.NoError(t, err)
	require.NoError(t, v.Get(&res))
	require.Equal(t, "system:serviceaccount:vms:default", res.Results["impersonating"])
	req.ServiceAccount = "maker"
	_, err = env.ExecuteActivity(a.RunTaskStep, req)
	requireAppError(t, err, ssp.ErrTypeCustomRunMismatch, true)
}
