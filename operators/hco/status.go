package hco

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	acts "github.com/virtflow/virtflow/activities/hco"
	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/operators/workflowstate"
	wf "github.com/virtflow/virtflow/workflows/hco"
)

// Condition reasons, as HCO reports them.
const (
	reasonReconcileCompleted = "ReconcileCompleted"
	reasonInit               = "Init"
	reasonInstallFailed      = "InstallFailed"
	reasonInstallCancelled   = "InstallCancelled"
)

type condSet struct{ available, progressing, degraded, upgradeable, reconcileComplete metav1.Condition }

func c(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
}

// conditionsFor maps the install workflow's state, and once installed the
// components' own conditions, to HyperConverged conditions.
func conditionsFor(st workflowstate.State, p wf.InstallProgress, children []acts.ComponentStatus) []metav1.Condition {
	switch st.Phase {
	case workflowstate.Running, workflowstate.NotFound:
		msg := fmt.Sprintf("Initializing HyperConverged cluster: %s, %d of %d components available", stepOf(p), p.Done(), len(p.Components))
		return []metav1.Condition{
			c(hcov1beta1.ConditionAvailable, metav1.ConditionFalse, reasonInit, msg),
			c(hcov1beta1.ConditionProgressing, metav1.ConditionTrue, reasonInit, msg),
			c(hcov1beta1.ConditionDegraded, metav1.ConditionFalse, reasonInit, msg),
			c(hcov1beta1.ConditionUpgradeable, metav1.ConditionFalse, reasonInit, msg),
			c(hcov1beta1.ConditionReconcileComplete, metav1.ConditionFalse, reasonInit, msg),
		}
	case workflowstate.Failed, workflowstate.Cancelled:
		reason := reasonInstallFailed
		if st.Phase == workflowstate.Cancelled {
			reason = reasonInstallCancelled
		}
		msg := "HyperConverged install did not complete: " + st.Message
		return []metav1.Condition{
			c(hcov1beta1.ConditionAvailable, metav1.ConditionFalse, reason, msg),
			c(hcov1beta1.ConditionProgressing, metav1.ConditionFalse, reason, msg),
			c(hcov1beta1.ConditionDegraded, metav1.ConditionTrue, reason, msg),
			c(hcov1beta1.ConditionUpgradeable, metav1.ConditionFalse, reason, msg),
			c(hcov1beta1.ConditionReconcileComplete, metav1.ConditionTrue, reason, msg),
		}
	}
	return aggregate(children)
}

func stepOf(p wf.InstallProgress) string {
	if p.Step == "" {
		return "starting"
	}
	return p.Step
}

// aggregate reports Available only when every component is, naming the
// first that is not, as HCO does ("KubeVirtNotAvailable").
func aggregate(children []acts.ComponentStatus) []metav1.Condition {
	ok := "Reconcile completed successfully"
	set := []metav1.Condition{
		c(hcov1beta1.ConditionAvailable, metav1.ConditionTrue, reasonReconcileCompleted, ok),
		c(hcov1beta1.ConditionProgressing, metav1.ConditionFalse, reasonReconcileCompleted, ok),
		c(hcov1beta1.ConditionDegraded, metav1.ConditionFalse, reasonReconcileCompleted, ok),
		c(hcov1beta1.ConditionUpgradeable, metav1.ConditionTrue, reasonReconcileCompleted, ok),
		c(hcov1beta1.ConditionReconcileComplete, metav1.ConditionTrue, reasonReconcileCompleted, ok),
	}
	var down []string
	for _, ch := range children {
		if ch.Available {
			continue
		}
		down = append(down, fmt.Sprintf("%s is not available: %s", ch.Component.Kind, ch.Message))
		if len(down) == 1 {
			reason := ch.Component.Kind + "NotAvailable"
			set[0] = c(hcov1beta1.ConditionAvailable, metav1.ConditionFalse, reason, "")
			set[1] = c(hcov1beta1.ConditionProgressing, metav1.ConditionTrue, reason, "")
			set[3] = c(hcov1beta1.ConditionUpgradeable, metav1.ConditionFalse, reason, "")
		}
	}
	if len(down) > 0 {
		msg := strings.Join(down, "; ")
		for _, i := range []int{0, 1, 3} {
			set[i].Message = msg
		}
	}
	return set
}

func (r *Reconciler) writeStatus(ctx context.Context, hc *hcov1beta1.HyperConverged, conds []metav1.Condition, children []acts.ComponentStatus) error {
	before := hc.DeepCopy()
	for _, cond := range conds {
		cond.ObservedGeneration = hc.Generation
		meta.SetStatusCondition(&hc.Status.Conditions, cond)
	}
	hc.Status.ObservedGeneration = hc.Generation
	hc.Status.Versions = []hcov1beta1.Version{{Name: "operator", Version: r.Version}}
	hc.Status.RelatedObjects = relatedObjects(hc)
	if equality.Semantic.DeepEqual(before.Status, hc.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, hc, crclient.MergeFrom(before)); err != nil {
		return fmt.Errorf("updating HyperConverged %s status: %w", hc.Name, err)
	}
	return nil
}

func relatedObjects(hc *hcov1beta1.HyperConverged) []corev1.ObjectReference {
	var refs []corev1.ObjectReference
	for _, d := range acts.DesiredComponents(hc) {
		ref := acts.RefOf(d)
		refs = append(refs, corev1.ObjectReference{Kind: ref.Kind, APIVersion: ref.APIVersion, Namespace: ref.Namespace, Name: ref.Name})
	}
	return refs
}
