package customrun

// Transitional. A run started before its workflow relayed the task
// activity's attempts into the memo (workflow version "progress-relay" at
// DefaultVersion) never publishes an Activity, so its retries are read as
// before, from the workflow's pending activities. This file can go once no
// such run can still be running: when `temporal workflow list --query
// "ExecutionStatus='Running'"` shows no ssp-task- run started before the
// upgrade that brought progress-relay (a CustomRun's timeout bounds them),
// and at the latest with the release after that one.

import (
	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// relaysNoActivity tells a run whose memo cannot show the task's activity:
// one that publishes no Activity while a task runs. A relaying run's task
// step always carries one; a run whose memo is not there yet has started
// nothing to read.
func relaysNoActivity(p ssp.Progress) bool {
	return p.Activity == nil && p.Step != ssp.StepCompleted
}

// legacyProgressMessage is progressMessage from the pending activities.
func legacyProgressMessage(step string, state workflowstate.State) string {
	for _, a := range state.Activities {
		if a.Attempt > 1 && a.LastFailure != "" {
			return retryMessage(step, a.Attempt, a.LastFailure)
		}
	}
	return step
}
