package cdi

import (
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// UploadDataVolume runs the volume's upload server on its node until an
// upload has been written. The server's address is noted on the claim,
// where cdi-uploadproxy finds it, and reported in the memo; a crashed
// worker's server is started again on retry, and the client sends the
// image again.
// Cancelling it removes the partial disk.
func UploadDataVolume(ctx workflow.Context, in cdi.ImportInput) (cdi.ImportResult, error) {
	return fillVolume(ctx, fill[cdi.ImportRequest]{dataVolume: in.DataVolume, node: in.Node, activity: cdi.ReceiveUpload, input: in.Request, cleanup: in.Request})
}
