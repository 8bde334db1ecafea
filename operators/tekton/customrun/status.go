package customrun

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// Condition statuses.
const (
	statusTrue    = "True"
	statusFalse   = "False"
	statusUnknown = "Unknown"
)

// outcome is what the CustomRun's Succeeded condition says next.
type outcome struct {
	status, reason, message string
	results                 map[string]string
}

func (o outcome) final() bool { return o.status != statusUnknown }

func running(message string) outcome {
	return outcome{status: statusUnknown, reason: ReasonRunning, message: message}
}

func failed(reason, message string) outcome {
	return outcome{status: statusFalse, reason: reason, message: message}
}

// stopReason is why a run is being stopped, and what its condition will
// say: a cancellation asked for (by the PipelineRun, which says why in
// statusMessage), else its timeout passed. Empty when it runs on.
func stopReason(name string, r run, now time.Time) (reason, message string) {
	switch {
	case r.cancelRequested():
		message = fmt.Sprintf("CustomRun %q was cancelled", name)
		if r.Spec.StatusMessage != "" {
			message += ". " + r.Spec.StatusMessage
		}
		return ReasonCancelled, message
	case r.timedOut(now):
		return ReasonTimedOut, fmt.Sprintf("CustomRun %q failed to finish within %q", name, r.timeout().String())
	}
	return "", ""
}

// progressMessage is a running workflow's step and, while its task is
// being retried, the attempt and the last one's failure, as the workflow's
// memo (p) shows the task's activity.
func progressMessage(step string, p ssp.Progress, state workflowstate.State) string {
	a := p.Activity
	if a == nil && relaysNoActivity(p) {
		return legacyProgressMessage(step, state)
	}
	if a != nil && a.Attempt > 1 && a.LastFailure != "" {
		return retryMessage(step, a.Attempt, a.LastFailure)
	}
	return step
}

func retryMessage(step string, attempt int32, lastFailure string) string {
	return fmt.Sprintf("%s (attempt %d; the last one failed: %s)", step, attempt, lastFailure)
}

// apply sets the outcome on the status: the Succeeded condition (its
// transition time moves only when its status does), the start time, the
// completion time and the results of a finished run.
func (o outcome) apply(st runStatus, generation int64, now time.Time) runStatus {
	t := metav1.NewTime(now.Truncate(time.Second))
	out := st
	out.ObservedGeneration = generation
	if out.StartTime == nil {
		out.StartTime = &t
	}
	c := condition{Type: conditionSucceeded, Status: o.status, Reason: o.reason, Message: o.message, LastTransitionTime: &t}
	if i := slices.IndexFunc(st.Conditions, func(c condition) bool { return c.Type == conditionSucceeded }); i >= 0 && st.Conditions[i].Status == o.status {
		c.LastTransitionTime = st.Conditions[i].LastTransitionTime
	}
	out.Conditions = []condition{c}
	if o.final() {
		out.CompletionTime = &t
		out.Results = resultsOf(o.results)
	}
	return out
}

// resultsOf lists results by name, so the status does not change with a
// map's order.
func resultsOf(m map[string]string) []result {
	var out []result
	for name, value := range m {
		out = append(out, result{Name: name, Value: value})
	}
	slices.SortFunc(out, func(a, b result) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
