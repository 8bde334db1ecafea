//go:build integration

package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// pipelinesNS is where ssp-operator installs the tasks and pipelines.
const pipelinesNS = "virtflow-pipelines"

var (
	pipelineRunGVK = schema.GroupVersionKind{Group: "tekton.dev", Version: "v1", Kind: "PipelineRun"}
	taskRunGVK     = schema.GroupVersionKind{Group: "tekton.dev", Version: "v1", Kind: "TaskRun"}
	customRunGVK   = schema.GroupVersionKind{Group: "tekton.dev", Version: "v1beta1", Kind: "CustomRun"}
)

// createdName reads the name kubectl create printed for a kind.
var createdName = regexp.MustCompile(`(?m)^(pipelinerun|taskrun)\.tekton\.dev/(\S+) created$`)

// createExample creates an example file as a user would, with kubectl
// create -f, and returns the run it created; the example's other objects
// (its secret) are deleted after the test, so the next test's create
// makes them again.
func createExample(t *testing.T, n *upRun, file string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", file))
	require.NoError(t, err)
	out, err := n.kubectl("create", "-f", abs).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { _ = n.kubectl("delete", "--ignore-not-found", "-f", abs).Run() })
	m := createdName.FindStringSubmatch(string(out))
	require.NotNil(t, m, "kubectl create printed no run:\n%s", out)
	return m[2]
}

// succeeded waits until a Tekton run's Succeeded condition is decided and
// returns the run; it fails the test with the condition's reason and
// message when it is not True.
func succeeded(t *testing.T, n *upRun, gvk schema.GroupVersionKind, ns, name string, timeout time.Duration) *unstructured.Unstructured {
	t.Helper()
	got := &unstructured.Unstructured{}
	status, reason, message := runCondition(t, n, gvk, ns, name, got, timeout)
	summary := taskRunsSummary(n, ns, name)
	if gvk == taskRunGVK && status == "False" {
		pod, _, _ := unstructured.NestedString(got.Object, "status", "podName")
		logs, _ := n.kubectl("logs", "-n", ns, pod, "--all-containers", "--tail=30").CombinedOutput()
		summary = string(logs)
	}
	require.Equal(t, "True", status, "%s %s: %s: %s\n%s", gvk.Kind, name, reason, message, summary)
	return got
}

// runCondition waits until a run's Succeeded condition is True or False.
func runCondition(t *testing.T, n *upRun, gvk schema.GroupVersionKind, ns, name string, into *unstructured.Unstructured, timeout time.Duration) (string, string, string) {
	t.Helper()
	into.SetGroupVersionKind(gvk)
	var status, reason, message string
	require.Eventually(t, func() bool {
		if n.c.Get(context.Background(), crclient.ObjectKey{Namespace: ns, Name: name}, into) != nil {
			return false
		}
		status, reason, message = succeededCondition(into)
		return status == "True" || status == "False"
	}, timeout, time.Second, "%s %s did not finish (last: %s %s: %s)\n%s", gvk.Kind, name, status, reason, message, taskRunsSummary(n, ns, name))
	return status, reason, message
}

// succeededCondition is a Tekton object's Succeeded condition.
func succeededCondition(u *unstructured.Unstructured) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Succeeded" {
			return str(m["status"]), str(m["reason"]), str(m["message"])
		}
	}
	return "", "", ""
}

// taskRunsSummary says how each TaskRun and CustomRun of a PipelineRun
// ended, for failure messages.
func taskRunsSummary(n *upRun, ns, pipelineRun string) string {
	out := ""
	for _, gvk := range []schema.GroupVersionKind{taskRunGVK, customRunGVK} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk)
		if n.c.List(context.Background(), list, crclient.InNamespace(ns), crclient.MatchingLabels{"tekton.dev/pipelineRun": pipelineRun}) != nil {
			continue
		}
		for _, r := range list.Items {
			s, reason, msg := succeededCondition(&r)
			out += fmt.Sprintf("  %s %s: %s %s: %s\n", gvk.Kind, r.GetName(), s, reason, msg)
			if pod, _, _ := unstructured.NestedString(r.Object, "status", "podName"); pod != "" && s == "False" {
				logs, _ := n.kubectl("logs", "-n", ns, pod, "--all-containers", "--tail=30").CombinedOutput()
				out += "    " + strings.ReplaceAll(strings.TrimSpace(string(logs)), "\n", "\n    ") + "\n"
			}
		}
	}
	return out
}

// childRun is the TaskRun or CustomRun of a PipelineRun's pipeline task.
func childRun(t *testing.T, n *upRun, gvk schema.GroupVersionKind, ns, pipelineRun, task string, timeout time.Duration) *unstructured.Unstructured {
	t.Helper()
	var found *unstructured.Unstructured
	require.Eventually(t, func() bool {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk)
		err := n.c.List(context.Background(), list, crclient.InNamespace(ns),
			crclient.MatchingLabels{"tekton.dev/pipelineRun": pipelineRun, "tekton.dev/pipelineTask": task})
		if err != nil || len(list.Items) == 0 {
			return false
		}
		found = &list.Items[0]
		return true
	}, timeout, 200*time.Millisecond, "no %s of %s's task %s\n%s", gvk.Kind, pipelineRun, task, taskRunsSummary(n, ns, pipelineRun))
	return found
}

// stepLog is a TaskRun's step container log.
func stepLog(t *testing.T, n *upRun, ns, taskRun, step string) string {
	t.Helper()
	tr := &unstructured.Unstructured{}
	tr.SetGroupVersionKind(taskRunGVK)
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKey{Namespace: ns, Name: taskRun}, tr))
	pod, _, _ := unstructured.NestedString(tr.Object, "status", "podName")
	require.NotEmpty(t, pod, "TaskRun %s has no pod", taskRun)
	out, err := n.kubectl("logs", "-n", ns, pod, "-c", "step-"+step).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// runResults are a run's results by name.
func runResults(u *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	results, _, _ := unstructured.NestedSlice(u.Object, "status", "results")
	for _, r := range results {
		m, _ := r.(map[string]any)
		out[str(m["name"])] = str(m["value"])
	}
	return out
}
