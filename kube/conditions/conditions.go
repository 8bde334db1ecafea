// Package conditions reads status conditions of CRs whose condition types
// differ by API (metav1.Condition, conditionsv1.Condition, KubeVirtCondition)
// while the fields read are named the same.
package conditions

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

// Of reads .status.conditions of any object without knowing its Go
// type, which differs per API (metav1.Condition, conditionsv1.Condition,
// KubeVirtCondition) while the fields read here are named the same.
func Of(obj *unstructured.Unstructured) []Condition {
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

// Find returns the condition of the given type, if present.
func Find(conds []Condition, typ string) (Condition, bool) {
	for _, c := range conds {
		if c.Type == typ {
			return c, true
		}
	}
	return Condition{}, false
}

// ObservedVersion is the version a component operator reports having
// deployed: KubeVirt's observedKubeVirtVersion or the observedVersion of the
// conditionsv1-style APIs; empty when it reports none.
func ObservedVersion(obj *unstructured.Unstructured) string {
	for _, path := range [][]string{{"status", "observedKubeVirtVersion"}, {"status", "observedVersion"}} {
		if v, ok, _ := unstructured.NestedString(obj.Object, path...); ok && v != "" {
			return v
		}
	}
	return ""
}
