package ssp

import "github.com/virtflow/virtflow/contracts/typed"

// ProgressSignalName is the signal the task activity reports its attempts
// to its own workflow on; the workflow publishes them in its memo.
const ProgressSignalName = "virtflow.progress"

// ProgressSignal is the task activity's report, typed.
var ProgressSignal = typed.Signal[ActivityProgress]{Name: ProgressSignalName}

// ActivityProgress is what the task activity reports of its attempt, and
// what the workflow's memo shows of it.
type ActivityProgress struct {
	// Name is the task running.
	Name string `json:"name,omitempty"`
	// Attempt is the attempt running or about to run; 0 before the first
	// has started.
	Attempt int32 `json:"attempt,omitempty"`
	// LastFailure is why the attempt before Attempt failed.
	LastFailure string `json:"lastFailure,omitempty"`
	// Failure is set only in a report: the reporting attempt failed with
	// it. The workflow turns it into the next attempt's LastFailure, so a
	// memo never holds it.
	Failure string `json:"failure,omitempty"`
}
