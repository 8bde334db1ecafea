package workloads

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// StatusStyle names the status shape an API uses.
type StatusStyle int

const (
	// ConditionsV1 is the openshift custom-resource-status shape with a
	// phase and observed/target/operator versions (CDI, SSP, NAC, HPP).
	ConditionsV1 StatusStyle = iota
	// KubeVirtStyle is KubeVirt's: KubeVirtCondition and
	// observedKubeVirtVersion/targetKubeVirtVersion.
	KubeVirtStyle
)

type health struct {
	total, ready int
	notReady     []string
	failed       []string
	// readiness says what a passing probe shows; notBuilt are components
	// the CR asks for that the kind lacks.
	readiness string
	notBuilt  []string
}

func (h health) allReady() bool {
	return h.ready == h.total && len(h.failed) == 0 && len(h.notBuilt) == 0
}

type cond struct{ typ, status, reason, message string }

func (h health) conditions() []cond {
	if h.allReady() {
		msg := h.readyMessage()
		return []cond{
			{"Available", "True", "AllComponentsReady", msg},
			{"Progressing", "False", "AllComponentsReady", msg},
			{"Degraded", "False", "AllComponentsReady", msg},
		}
	}
	problems := append(append([]string{}, h.failed...), h.notReady...)
	for _, n := range h.notBuilt {
		problems = append(problems, n+": not built in virtflow yet")
	}
	msg := fmt.Sprintf("%d of %d components ready: %s", h.ready, h.total, strings.Join(problems, "; "))
	degraded := cond{"Degraded", "False", "Deploying", msg}
	if len(h.failed) > 0 {
		degraded = cond{"Degraded", "True", "DeploymentFailed", msg}
	}
	return []cond{
		{"Available", "False", "DeploymentInProgress", msg},
		{"Progressing", "True", "DeploymentInProgress", msg},
		degraded,
	}
}

// readyMessage says what is ready, what that means, and what is missing.
func (h health) readyMessage() string {
	msg := "All components are ready."
	if h.total == 0 {
		msg = "No components are deployed."
	} else if h.readiness != "" {
		msg = fmt.Sprintf("All %d components are ready (%s).", h.total, h.readiness)
	}
	return msg
}

// writeStatus patches the status subresource once, and only when it changed.
func (r *Reconciler) writeStatus(ctx context.Context, obj *unstructured.Unstructured, h health) error {
	before := obj.DeepCopy()
	status, _, _ := unstructured.NestedMap(obj.Object, "status")
	if status == nil {
		status = map[string]any{}
	}
	old, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	status["conditions"] = mergeConditions(old, h.conditions(), r.Kind.Style)
	phase := "Deployed"
	if !h.allReady() {
		phase = "Deploying"
	}
	status["phase"] = phase
	switch r.Kind.Style {
	case KubeVirtStyle:
		status["observedKubeVirtVersion"] = r.Kind.Version
		status["targetKubeVirtVersion"] = r.Kind.Version
		status["operatorVersion"] = r.Kind.Version
		status["observedGeneration"] = obj.GetGeneration()
	default:
		status["observedGeneration"] = obj.GetGeneration()
		status["observedVersion"] = r.Kind.Version
		status["targetVersion"] = r.Kind.Version
		status["operatorVersion"] = r.Kind.Version
	}
	obj.Object["status"] = status
	if reflect.DeepEqual(before.Object["status"], obj.Object["status"]) {
		return nil
	}
	patch := r.Client.Status().Patch
	if r.Kind.NoStatusSubresource {
		patch = func(ctx context.Context, obj client.Object, p client.Patch, _ ...client.SubResourcePatchOption) error {
			return r.Client.Patch(ctx, obj, p)
		}
	}
	if err := patch(ctx, obj, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("updating status of %s %s: %w", r.Kind.GVK.Kind, obj.GetName(), err)
	}
	return nil
}

// mergeConditions keeps lastTransitionTime when a condition's status did not
// change, so the timestamps mean what they say.
func mergeConditions(old []any, next []cond, style StatusStyle) []any {
	prev := map[string]map[string]any{}
	for _, o := range old {
		if m, ok := o.(map[string]any); ok {
			t, _ := m["type"].(string)
			prev[t] = m
		}
	}
	now := time.Now().UTC().Format(time.RFC3339)
	out := make([]any, 0, len(next))
	for _, c := range next {
		m := map[string]any{"type": c.typ, "status": c.status, "reason": c.reason, "message": c.message, "lastTransitionTime": now}
		if p, ok := prev[c.typ]; ok && p["status"] == c.status {
			m["lastTransitionTime"] = p["lastTransitionTime"]
			if p["reason"] == c.reason && p["message"] == c.message {
				m = p
			}
		}
		if _, ok := m["lastHeartbeatTime"]; !ok && style == ConditionsV1 {
			m["lastHeartbeatTime"] = now
		}
		out = append(out, m)
	}
	return out
}
