package uploadproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/uploadtoken"
)

// Workflows is the part of the Temporal client the proxy uses: it only
// reads a workflow's state and memo.
type Workflows interface {
	// DescribeWorkflowExecution returns the execution's state and memo.
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
}

// errNotReady is an upload server that is not listening yet (or any
// more); the client may try again.
var errNotReady = errors.New("the upload server is not ready yet")

// serverFor finds the upload server of the token's claim: its DataVolume
// must be an upload whose workflow's running upload activity reported
// where it listens. The claim's upload server annotation is only for
// people to read: a namespace editor can write it.
func (p *Proxy) serverFor(ctx context.Context, c uploadtoken.Claims) (string, int, error) {
	dv := &cdiv1.DataVolume{}
	if err := p.Client.Get(ctx, types.NamespacedName{Namespace: c.Namespace, Name: c.Name}, dv); err != nil {
		return "", http.StatusNotFound, fmt.Errorf("no DataVolume %s/%s to upload into", c.Namespace, c.Name)
	}
	if dv.Spec.Source == nil || dv.Spec.Source.Upload == nil {
		return "", http.StatusForbidden, fmt.Errorf("DataVolume %s/%s does not take uploads", c.Namespace, c.Name)
	}
	if dv.Status.Phase == cdiv1.Succeeded {
		return "", http.StatusConflict, fmt.Errorf("DataVolume %s/%s has already been uploaded", c.Namespace, c.Name)
	}
	addr, err := p.uploadServer(ctx, dv)
	if errors.Is(err, errNotReady) {
		return "", http.StatusServiceUnavailable, fmt.Errorf("the upload server of %s/%s is not ready yet", c.Namespace, c.Name)
	}
	if err != nil {
		return "", http.StatusServiceUnavailable, fmt.Errorf("finding the upload server of %s/%s: %w", c.Namespace, c.Name, err)
	}
	return addr, 0, nil
}

// uploadServer is the address the DataVolume's upload workflow shows in
// its memo while its upload activity listens.
func (p *Proxy) uploadServer(ctx context.Context, dv *cdiv1.DataVolume) (string, error) {
	if p.Workflows == nil {
		return "", errors.New("cdi-uploadproxy has no Temporal client to read upload workflows with")
	}
	id := cdi.UploadWorkflowID(string(dv.UID))
	resp, err := p.Workflows.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return "", errNotReady
	}
	if err != nil {
		return "", fmt.Errorf("describing workflow %s: %w", id, err)
	}
	info := resp.GetWorkflowExecutionInfo()
	payload := info.GetMemo().GetFields()[cdi.ProgressMemoKey]
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING || payload == nil {
		return "", errNotReady
	}
	var progress cdi.ImportProgress
	if err := converter.GetDefaultDataConverter().FromPayload(payload, &progress); err != nil {
		return "", fmt.Errorf("decoding the progress of workflow %s: %w", id, err)
	}
	a := progress.Activity
	if progress.Step != cdi.StepImporting || a == nil || a.Name != cdi.ReceiveUploadName || a.UploadServer == "" {
		return "", errNotReady
	}
	if _, _, err := net.SplitHostPort(a.UploadServer); err != nil {
		return "", fmt.Errorf("workflow %s reports upload server %q: %w", id, a.UploadServer, err)
	}
	return a.UploadServer, nil
}
