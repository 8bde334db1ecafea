package ssptasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// customRun is the part of a CustomRun that decides whom a task acts as
// and what it may run.
type customRun struct {
	Spec struct {
		CustomRef *struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
		} `json:"customRef"`
		ServiceAccountName string `json:"serviceAccountName"`
		Params             []struct {
			Name  string          `json:"name"`
			Value json.RawMessage `json:"value"`
		} `json:"params"`
	} `json:"spec"`
	Status struct {
		CompletionTime *string `json:"completionTime"`
	} `json:"status"`
}

// pipelineTasks are the tasks the template pipeline runs.
var pipelineTasks = []string{ssp.TaskCreateVMFromTemplate, ssp.TaskWaitForVMIStatus, ssp.TaskExecuteInVM, ssp.TaskCleanupVM}

// refuse is a request its CustomRun does not bear out.
func refuse(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), ssp.ErrTypeCustomRunMismatch, nil)
}

// serviceAccount is whom the request's task may act as: the service
// account of the CustomRun the workflow serves (its ID names the
// CustomRun's UID), which must be the request's, run the request's task
// and not have finished. Nothing of the request is taken on trust.
func (a *Activities) serviceAccount(ctx context.Context, req ssp.TaskRequest) (string, error) {
	if a.Client == nil {
		return "", errors.New("the durable tasks have no client to read CustomRuns with")
	}
	wfID := a.execution(ctx)
	uid, ok := strings.CutPrefix(wfID, ssp.TaskWorkflowID(""))
	if !ok || uid == "" {
		return "", refuse("task %s runs in workflow %s, which serves no CustomRun", req.Task, wfID)
	}
	if req.CustomRunUID != "" && req.CustomRunUID != uid {
		return "", refuse("the request names CustomRun UID %s, workflow %s serves %s", req.CustomRunUID, wfID, uid)
	}
	u, err := a.readCustomRun(ctx, req.Namespace, req.CustomRun, types.UID(uid))
	if err != nil {
		return "", err
	}
	return checkCustomRun(u, req)
}

// readCustomRun reads the CustomRun by name, or by UID among its
// namespace's for requests that do not name it.
func (a *Activities) readCustomRun(ctx context.Context, namespace, name string, uid types.UID) (*unstructured.Unstructured, error) {
	if name == "" {
		return a.findCustomRun(ctx, namespace, uid)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(ssp.CustomRunAPIVersion)
	u.SetKind(ssp.CustomRunKind)
	err := a.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, u)
	if apierrors.IsNotFound(err) {
		return nil, refuse("CustomRun %s/%s does not exist", namespace, name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading CustomRun %s/%s: %w", namespace, name, err)
	}
	if u.GetUID() != uid {
		return nil, refuse("CustomRun %s/%s is UID %s, not %s, the one the workflow serves", namespace, name, u.GetUID(), uid)
	}
	return u, nil
}

func (a *Activities) findCustomRun(ctx context.Context, namespace string, uid types.UID) (*unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(ssp.CustomRunAPIVersion)
	list.SetKind(ssp.CustomRunKind + "List")
	if err := a.Client.List(ctx, list, crclient.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing CustomRuns in %s: %w", namespace, err)
	}
	for i := range list.Items {
		if list.Items[i].GetUID() == uid {
			return &list.Items[i], nil
		}
	}
	return nil, refuse("no CustomRun of UID %s in namespace %s", uid, namespace)
}

// checkCustomRun returns the CustomRun's service account once the request
// is found to ask for what the CustomRun runs, as whom it runs.
func checkCustomRun(u *unstructured.Unstructured, req ssp.TaskRequest) (string, error) {
	var cr customRun
	if err := runtimeDecode(u, &cr); err != nil {
		return "", err
	}
	name := u.GetNamespace() + "/" + u.GetName()
	if cr.Status.CompletionTime != nil {
		return "", refuse("CustomRun %s has finished", name)
	}
	if err := checkTask(cr, name, req); err != nil {
		return "", err
	}
	sa := cr.Spec.ServiceAccountName
	if sa == "" {
		// Tekton runs a TaskRun's pod as the namespace's default.
		sa = ssp.DefaultServiceAccount
	}
	asked := req.ServiceAccount
	if asked == "" {
		asked = ssp.DefaultServiceAccount
	}
	if asked != sa {
		return "", refuse("the request acts as service account %s, CustomRun %s runs as %s", asked, name, sa)
	}
	return sa, nil
}

// checkTask requires the request's task to be the CustomRun's durable
// task, with its params, or one of its durable pipeline's tasks.
func checkTask(cr customRun, name string, req ssp.TaskRequest) error {
	ref := cr.Spec.CustomRef
	switch {
	case ref == nil || ref.APIVersion != ssp.APIVersion:
		return refuse("CustomRun %s runs no durable task", name)
	case ref.Kind == ssp.KindDurableTask && ref.Name != req.Task:
		return refuse("CustomRun %s runs task %s, not %s", name, ref.Name, req.Task)
	case ref.Kind == ssp.KindDurableTask:
		return checkParams(cr, name, req.Params)
	case ref.Kind == ssp.KindDurablePipeline && ref.Name == ssp.TemplatePipelineName && slices.Contains(pipelineTasks, req.Task):
		return nil
	}
	return refuse("CustomRun %s (%s %s) does not run task %s", name, ref.Kind, ref.Name, req.Task)
}

// checkParams requires the request's params to be the CustomRun's, as
// the controller passes them (strings and arrays by name).
func checkParams(cr customRun, name string, got ssp.Params) error {
	want := ssp.Params{Strings: map[string]string{}, Arrays: map[string][]string{}}
	for _, p := range cr.Spec.Params {
		var s string
		var arr []string
		switch {
		case json.Unmarshal(p.Value, &s) == nil:
			want.Strings[p.Name] = s
		case json.Unmarshal(p.Value, &arr) == nil:
			want.Arrays[p.Name] = arr
		default:
			return refuse("CustomRun %s: param %s is neither a string nor an array", name, p.Name)
		}
	}
	sameArrays := maps.EqualFunc(want.Arrays, got.Arrays, func(a, b []string) bool { return slices.Equal(a, b) })
	if !maps.Equal(want.Strings, got.Strings) || !sameArrays {
		return refuse("the request's params are not CustomRun %s's", name)
	}
	return nil
}

// runtimeDecode reads the unstructured CustomRun into out.
func runtimeDecode(u *unstructured.Unstructured, out any) error {
	data, err := json.Marshal(u.Object)
	if err == nil {
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		return fmt.Errorf("reading CustomRun %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return nil
}

// execution is the workflow the activity runs in.
func (a *Activities) execution(ctx context.Context) string {
	if a.executionID != nil {
		return a.executionID(ctx)
	}
	return activity.GetInfo(ctx).WorkflowExecution.ID
}
