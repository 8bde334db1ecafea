package virtadmission

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// KubeVirtDeletePath is where the KubeVirt uninstall guard is served, as
// upstream's virt-operator serves it. Here virt-api serves it: virt-operator
// serves no webhooks, and virt-api goes only after the CR is gone.
const KubeVirtDeletePath = "/kubevirt-validate-delete"

// uninstallRefused is upstream's refusal, naming what is still there.
const uninstallRefused = "Rejecting the uninstall request, since there are still %s present. " +
	"Either delete all KubeVirt related workloads or change the uninstall strategy before uninstalling KubeVirt."

// KubeVirtDeletionValidator refuses to delete a deployed KubeVirt whose
// uninstall strategy is BlockUninstallIfWorkloadsExist while any VMI, VM
// or VMI replica set exists, as upstream's KubeVirtDeletionAdmitter: the
// HyperConverged's deletion dry-runs this one, so it guards both.
type KubeVirtDeletionValidator struct {
	// Reader reads the KubeVirt and lists workloads from the API server.
	Reader client.Reader
}

// Handle admits DELETE.
func (v *KubeVirtDeletionValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	kv, err := v.kubeVirt(ctx, req)
	if err != nil {
		return kubeVirtBadRequest(err)
	}
	if kv == nil || kv.Spec.UninstallStrategy != kubevirtv1.KubeVirtUninstallStrategyBlockUninstallIfWorkloadsExist ||
		kv.Status.Phase != kubevirtv1.KubeVirtPhaseDeployed {
		return admission.Allowed("")
	}
	for _, w := range []struct {
		list client.ObjectList
		name string
	}{
		{&kubevirtv1.VirtualMachineInstanceList{}, "Virtual Machine Instances"},
		{&kubevirtv1.VirtualMachineList{}, "Virtual Machines"},
		{&kubevirtv1.VirtualMachineInstanceReplicaSetList{}, "Virtual Machine Instance Replica Sets"},
	} {
		if err := v.Reader.List(ctx, w.list, client.Limit(2)); err != nil {
			return kubeVirtBadRequest(fmt.Errorf("listing %s: %w", w.name, err))
		}
		if meta.LenList(w.list) > 0 {
			return kubeVirtBadRequest(fmt.Errorf(uninstallRefused, w.name))
		}
	}
	return admission.Allowed("")
}

// kubeVirt is the KubeVirt being deleted: the named one, else the first
// in the namespace; nil when there is none.
func (v *KubeVirtDeletionValidator) kubeVirt(ctx context.Context, req admission.Request) (*kubevirtv1.KubeVirt, error) {
	if req.Name != "" {
		kv := &kubevirtv1.KubeVirt{}
		if err := v.Reader.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: req.Name}, kv); err != nil {
			return nil, err
		}
		return kv, nil
	}
	list := &kubevirtv1.KubeVirtList{}
	if err := v.Reader.List(ctx, list, client.InNamespace(req.Namespace)); err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, nil
	}
	return &list.Items[0], nil
}

// kubeVirtBadRequest is upstream's generic admission error: the message, a
// 400, no reason.
func kubeVirtBadRequest(err error) admission.Response {
	resp := admission.Denied(err.Error())
	resp.Result = &metav1.Status{Message: err.Error(), Code: http.StatusBadRequest}
	return resp
}

// kubeVirtDeleteRules match deleting a KubeVirt in every served version.
func kubeVirtDeleteRules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{kubevirtv1.GroupVersion.Group},
			APIVersions: slices.Clone(kubevirtv1.ApiSupportedWebhookVersions), Resources: []string{"kubevirts"}},
	}}
}
