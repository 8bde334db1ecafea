package hyperconverged

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/kube/workflowstate"
	"github.com/virtflow/virtflow/operands"
)

// Condition reasons, as HCO reports them.
const (
	reasonReconcileCompleted = "ReconcileCompleted"
	reasonInit               = "Init"
	reasonInstallFailed      = "InstallFailed"
	reasonInstallCancelled   = "InstallCancelled"
	reasonUninstallFailed    = "UninstallFailed"
	reasonTainted            = "UnsupportedFeatureAnnotation"
)

func c(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
}

const (
	yes = metav1.ConditionTrue
	no  = metav1.ConditionFalse
)

// set is the five HCO conditions with one reason and message, and the
// statuses of Available, Progressing, Degraded, Upgradeable and
// ReconcileComplete in that order.
func set(reason, msg string, available, progressing, degraded, upgradeable, complete metav1.ConditionStatus) []metav1.Condition {
	return []metav1.Condition{
		c(hcov1beta1.ConditionAvailable, available, reason, msg),
		c(hcov1beta1.ConditionProgressing, progressing, reason, msg),
		c(hcov1beta1.ConditionDegraded, degraded, reason, msg),
		c(hcov1beta1.ConditionUpgradeable, upgradeable, reason, msg),
		c(hcov1beta1.ConditionReconcileComplete, complete, reason, msg),
	}
}

// conditionsFor maps the install workflow's state, and once installed the
// components' own conditions, to HyperConverged conditions.
func conditionsFor(st workflowstate.State, p hco.InstallProgress, children []hco.ComponentStatus) []metav1.Condition {
	switch st.Phase {
	case workflowstate.Running, workflowstate.NotFound:
		msg := fmt.Sprintf("Initializing HyperConverged cluster: %s, %d of %d components available", stepOf(p), p.Done(), len(p.Components))
		return set(reasonInit, msg, no, yes, no, no, no)
	case workflowstate.Failed, workflowstate.Cancelled:
		reason := reasonInstallFailed
		if st.Phase == workflowstate.Cancelled {
			reason = reasonInstallCancelled
		}
		return set(reason, "HyperConverged install did not complete: "+st.Message, no, no, yes, no, yes)
	}
	return aggregate(children)
}

// uninstallFailed reports a HyperConverged whose components could not all
// be removed; it stays, with its finalizer, until they are.
func uninstallFailed(st workflowstate.State) []metav1.Condition {
	msg := "Removing the HyperConverged's components did not complete: " + st.Message
	return set(reasonUninstallFailed, msg, no, yes, yes, no, no)
}

func stepOf(p hco.InstallProgress) string {
	if p.Step == "" {
		return "starting"
	}
	return p.Step
}

// aggregate reports Available only when every component is, naming the
// first that is not, as HCO does ("KubeVirtNotAvailable").
func aggregate(children []hco.ComponentStatus) []metav1.Condition {
	conds := set(reasonReconcileCompleted, "Reconcile completed successfully", yes, no, no, yes, yes)
	var down []string
	for _, ch := range children {
		if ch.Available {
			continue
		}
		down = append(down, fmt.Sprintf("%s is not available: %s", ch.Component.Kind, ch.Message))
		if len(down) == 1 {
			reason := ch.Component.Kind + "NotAvailable"
			conds[0] = c(hcov1beta1.ConditionAvailable, no, reason, "")
			conds[1] = c(hcov1beta1.ConditionProgressing, yes, reason, "")
			conds[3] = c(hcov1beta1.ConditionUpgradeable, no, reason, "")
		}
	}
	if len(down) > 0 {
		msg := strings.Join(down, "; ")
		for _, i := range []int{0, 1, 3} {
			conds[i].Message = msg
		}
	}
	return conds
}

// writeStatus patches the conditions, versions and related objects and,
// when measured (nil leaves it as it is), whether the infrastructure is
// highly available; nothing is sent when nothing changed.
func (r *Reconciler) writeStatus(ctx context.Context, hc *hcov1beta1.HyperConverged, conds []metav1.Condition, highlyAvailable *bool) error {
	before := hc.DeepCopy()
	for _, cond := range conds {
		cond.ObservedGeneration = hc.Generation
		meta.SetStatusCondition(&hc.Status.Conditions, cond)
	}
	if highlyAvailable != nil {
		noteHighlyAvailable(ctx, hc, *highlyAvailable)
	}
	taint(hc)
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

// taint raises TaintedConfiguration while a jsonpatch annotation changes
// something, and removes it (rather than turning it False) otherwise, as
// HCO keeps that back door low-profile.
func taint(hc *hcov1beta1.HyperConverged) {
	tainted := false
	for a, n := range operands.JSONPatchChanges(hc) {
		unsafeModifications.WithLabelValues(a).Set(float64(n))
		tainted = tainted || n > 0
	}
	if !tainted {
		meta.RemoveStatusCondition(&hc.Status.Conditions, hcov1beta1.ConditionTaintedConfiguration)
		return
	}
	meta.SetStatusCondition(&hc.Status.Conditions, metav1.Condition{Type: hcov1beta1.ConditionTaintedConfiguration, Status: yes,
		Reason: reasonTainted, Message: "Unsupported feature was activated via an HCO annotation", ObservedGeneration: hc.Generation})
}

func relatedObjects(hc *hcov1beta1.HyperConverged) []corev1.ObjectReference {
	var refs []corev1.ObjectReference
	for _, ref := range operands.Refs(hc) {
		refs = append(refs, corev1.ObjectReference{Kind: ref.Kind, APIVersion: ref.APIVersion, Namespace: ref.Namespace, Name: ref.Name})
	}
	return refs
}
