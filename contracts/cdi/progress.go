package cdi

import "github.com/virtflow/virtflow/contracts/typed"

// ProgressSignalName is the signal a running disk activity reports its
// progress to its own workflow on; the workflow publishes it in its memo.
const ProgressSignalName = "virtflow.progress"

// ProgressSignal is the disk activities' progress report, typed.
var ProgressSignal = typed.Signal[ActivityProgress]{Name: ProgressSignalName}

// ActivityProgress is what a disk activity reports of its attempt, and
// what the workflow's memo shows of it.
type ActivityProgress struct {
	// Name is the activity type.
	Name string `json:"name,omitempty"`
	// Attempt is the attempt running or about to run; 0 before the first
	// has started.
	Attempt int32 `json:"attempt,omitempty"`
	// LastFailure is why the attempt before Attempt failed, as Temporal
	// would show it of a retried activity.
	LastFailure string `json:"lastFailure,omitempty"`
	// Failure is set only in a report: the reporting attempt failed with
	// it. The workflow turns it into the next attempt's LastFailure, so a
	// memo never holds it.
	Failure string `json:"failure,omitempty"`
	// Percent is how much of the copy is done, 0 to 100.
	Percent float64 `json:"percent,omitempty"`
	// UploadServer is host:port of the upload server while it listens.
	UploadServer string `json:"uploadServer,omitempty"`
}
