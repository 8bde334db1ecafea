package cdi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sdkapi "kubevirt.io/controller-lifecycle-operator-sdk/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/kube/webhookconfig"
	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
)

// UninstallValidatePath is where cdi-apiserver serves the CDI uninstall
// guard.
const UninstallValidatePath = "/cdi-validate"

// UninstallHook is the configuration of the CDI uninstall guard, as
// upstream's cdi-operator names it.
const UninstallHook = "cdi-api-validate"

// cronLabel marks the DataVolumes a DataImportCron made; they do not keep
// CDI installed.
const cronLabel = "cdi.kubevirt.io/dataImportCron"

const uninstallRefused = "rejecting the uninstall request, since there are still %d DataVolumes present. " +
	"Either delete all DataVolumes or change the uninstall strategy before uninstalling CDI"

// UninstallValidator refuses to delete a deployed CDI whose uninstall
// strategy is BlockUninstallIfWorkloadsExist while DataVolumes exist, as
// CDI's cdi-validate webhook: the HyperConverged's deletion dry-runs this
// one, so it guards both.
type UninstallValidator struct {
	// Reader reads the CDI and lists DataVolumes from the API server.
	Reader client.Reader
}

// Handle admits DELETE; every other operation passes.
func (v *UninstallValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Resource.Group != cdiv1.SchemeGroupVersion.Group || req.Resource.Resource != "cdis" {
		return cdiadmission.BadRequest(fmt.Errorf("unexpected resource: %s", req.Resource.Resource))
	}
	if req.Operation != admissionv1.Delete {
		return cdiadmission.Admit()
	}
	cr, err := v.deleted(ctx, req)
	if err != nil {
		return cdiadmission.BadRequest(err)
	}
	if p := cr.Status.Phase; p == sdkapi.PhaseEmpty || p == sdkapi.PhaseError {
		return cdiadmission.Admit()
	}
	if s := cr.Spec.UninstallStrategy; s == nil || *s != cdiv1.CDIUninstallStrategyBlockUninstallIfWorkloadsExist {
		return cdiadmission.Admit()
	}
	notCron, _ := k8slabels.NewRequirement(cronLabel, selection.DoesNotExist, nil)
	dvs := &cdiv1.DataVolumeList{}
	if err := v.Reader.List(ctx, dvs, client.Limit(2), client.MatchingLabelsSelector{Selector: k8slabels.NewSelector().Add(*notCron)}); err != nil {
		return cdiadmission.BadRequest(err)
	}
	if n := len(dvs.Items); n > 0 {
		return cdiadmission.BadRequest(fmt.Errorf(uninstallRefused, n))
	}
	return cdiadmission.Admit()
}

// deleted is the CDI being deleted: the request's old object, else the
// named one read from the API server.
func (v *UninstallValidator) deleted(ctx context.Context, req admission.Request) (*cdiv1.CDI, error) {
	cr := &cdiv1.CDI{}
	switch {
	case len(req.OldObject.Raw) > 0:
		if err := json.Unmarshal(req.OldObject.Raw, cr); err != nil {
			return nil, err
		}
	case req.Name != "":
		if err := v.Reader.Get(ctx, client.ObjectKey{Name: req.Name}, cr); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("cannot derive deleted resource")
	}
	return cr, nil
}

// UninstallWebhook is cdi-apiserver's uninstall guard, reached through cc.
// As upstream's it fails open: an unreachable cdi-apiserver does not
// block removing CDI.
func UninstallWebhook(cc webhookconfig.ClientConfig) admissionregistrationv1.ValidatingWebhook {
	hook := webhookconfig.Validating(cc, "cdi-validate.cdi.kubevirt.io", UninstallValidatePath,
		webhookconfig.Rules("cdi.kubevirt.io", "v1beta1", "cdis", admissionregistrationv1.Delete))
	ignore := admissionregistrationv1.Ignore
	hook.FailurePolicy = &ignore
	return hook
}
