package cdi

import (
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// CloneDataVolume copies the source claim's disk into the target's on
// their node: a reflink where the filesystem can, else a resumable sparse
// copy. Cancelling it removes the partial disk.
func CloneDataVolume(ctx workflow.Context, in cdi.CloneInput) (cdi.ImportResult, error) {
	cleanup := cdi.ImportRequest{VolumeDir: in.Request.VolumeDir, Key: in.Request.Key, Namespace: in.Request.Namespace, Claim: in.Request.Claim}
	return fillVolume(ctx, fill[cdi.CloneRequest]{dataVolume: in.DataVolume, node: in.Node, activity: cdi.CloneDisk, input: in.Request, cleanup: cleanup})
}
