package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition is the OpenShift custom-resource-status (conditions/v1) shape
// that upstream reports, not metav1.Condition: it carries a heartbeat time
// and no observedGeneration. Keeping the shape lets tools written against
// upstream read our status.
type Condition struct {
	// Type names the aspect reported, e.g. Available.
	Type ConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status corev1.ConditionStatus `json:"status"`
	// Reason is a one-word CamelCase cause of the last transition.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message explains the last transition for humans.
	// +optional
	Message string `json:"message,omitempty"`
	// LastHeartbeatTime is refreshed on every reconcile, so a stale value
	// reveals a stuck operator even when nothing transitions.
	// +optional
	LastHeartbeatTime metav1.Time `json:"lastHeartbeatTime"`
	// LastTransitionTime is when Status last changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
}

// ConditionType names a condition.
type ConditionType string

// Condition types the operator reports; they follow the ClusterOperator
// vocabulary that OLM and the console understand.
const (
	ConditionAvailable   ConditionType = "Available"
	ConditionProgressing ConditionType = "Progressing"
	ConditionDegraded    ConditionType = "Degraded"
	ConditionUpgradeable ConditionType = "Upgradeable"
)
