//go:build integration

package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// tektonShell is the shell image `virtflow up` imports for Tekton's script
// steps.
const tektonShell = "virtflow.local/tekton/shell:v1.15.0"

// TestTektonRunsATaskRunOnTheNode checks the Tekton Pipelines `virtflow
// up` installs: a TaskRun with a script step runs as a pod on the node
// and reports its result.
func TestTektonRunsATaskRunOnTheNode(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	tr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tekton.dev/v1", "kind": "TaskRun",
		"metadata": map[string]any{"namespace": s.ns, "name": "hello"},
		"spec": map[string]any{"taskSpec": map[string]any{
			"results": []any{map[string]any{"name": "word"}},
			"steps": []any{map[string]any{"name": "say", "image": tektonShell,
				"script": "#!/bin/sh\nset -e\nprintf virtflow > $(results.word.path)\n"}},
		}},
	}}
	require.NoError(t, n.c.Create(context.Background(), tr))
	var status, reason, message string
	require.Eventually(t, func() bool {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(tr.GroupVersionKind())
		if n.c.Get(context.Background(), crclient.ObjectKeyFromObject(tr), got) != nil {
			return false
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Succeeded" {
				status, reason, message = m["status"].(string), str(m["reason"]), str(m["message"])
			}
		}
		if status != "True" {
			return status == "False"
		}
		results, _, _ := unstructured.NestedSlice(got.Object, "status", "results")
		return len(results) == 1 && results[0].(map[string]any)["value"] == "virtflow"
	}, 3*time.Minute, time.Second, "the TaskRun did not finish")
	require.Equal(t, "True", status, "%s: %s", reason, message)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
