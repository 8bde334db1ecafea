package cdi

import (
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/activities/storage"
)

// CloneWorkflowName is the workflow type of a DataVolume clone.
const CloneWorkflowName = "cdi.CloneDataVolume"

// CloneInput is one host-assisted clone on the node holding both volumes.
type CloneInput struct {
	DataVolume string               `json:"dataVolume"`
	Node       string               `json:"node"`
	Request    storage.CloneRequest `json:"request"`
}

// CloneDataVolume copies the source claim's disk into the target's on
// their node: a reflink where the filesystem can, else a resumable sparse
// copy. Cancelling it removes the partial disk.
func CloneDataVolume(ctx workflow.Context, in CloneInput) (storage.ImportResult, error) {
	cleanup := storage.ImportRequest{VolumeDir: in.Request.VolumeDir, Key: in.Request.Key}
	return fillVolume(ctx, fill{dataVolume: in.DataVolume, node: in.Node, activity: storage.CloneDiskName, input: in.Request, cleanup: cleanup})
}
