package kube

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Condition is the common shape of status conditions across the KubeVirt,
// CDI, SSP, network-addons and hostpath-provisioner APIs.
type Condition struct {
	Type    string
	Status  string
	Reason  string
	Message string
}

// Conditions reads .status.conditions of any object without knowing its Go
// type, which differs per API (metav1.Condition, conditionsv1.Condition,
// KubeVirtCondition) while the fields read here are named the same.
func Conditions(obj *unstructured.Unstructured) []Condition {
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	out := make([]Condition, 0, len(raw))
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		c := Condition{}
		c.Type, _ = m["type"].(string)
		c.Status, _ = m["status"].(string)
		c.Reason, _ = m["reason"].(string)
		c.Message, _ = m["message"].(string)
		out = append(out, c)
	}
	return out
}

// FindCondition returns the condition of the given type, if present.
func FindCondition(conds []Condition, typ string) (Condition, bool) {
	for _, c := range conds {
		if c.Type == typ {
			return c, true
		}
	}
	return Condition{}, false
}
