// Package rbacpolicy holds what no virtflow role may grant, whoever
// writes it (deploy/ or an operator): a wildcard verb on RBAC objects,
// secrets, admission webhooks or API services (which would carry escalate,
// bind and the power to intercept every request), or escalate, bind and
// impersonate on anything but named objects. Tests of the operators and of
// deploy/ check every role against it.
package rbacpolicy

import (
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// wildcardGroups are the API groups in which no rule may grant "*".
var wildcardGroups = []string{"rbac.authorization.k8s.io", "admissionregistration.k8s.io", "apiregistration.k8s.io"}

// namedVerbs may only be granted on named objects.
var namedVerbs = []string{"escalate", "bind", "impersonate"}

// impersonable are what impersonate acts on, by API group: "*" on them
// carries it.
var impersonable = map[string][]string{"": {"users", "groups", "serviceaccounts"}, "authentication.k8s.io": {"userextras", "uids"}}

// Violations says, one line per offence, how rules break the policy;
// none when they keep it.
func Violations(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		if len(r.NonResourceURLs) > 0 {
			continue
		}
		if has(r.Verbs, "*") {
			for _, g := range wildcardGroups {
				if has(r.APIGroups, g) {
					out = append(out, fmt.Sprintf("verbs * on %v of %s", r.Resources, g))
				}
			}
			if has(r.APIGroups, "") && has(r.Resources, "secrets") {
				out = append(out, fmt.Sprintf("verbs * on secrets (%v)", r.Resources))
			}
		}
		if len(r.ResourceNames) > 0 {
			continue
		}
		for _, v := range namedVerbs {
			if slices.Contains(r.Verbs, v) {
				out = append(out, fmt.Sprintf("%s on %v of %v without resourceNames", v, r.Resources, r.APIGroups))
			}
		}
		out = append(out, wildcardImpersonation(r)...)
	}
	return out
}

// Check is the violations of every Role and ClusterRole among objs, each
// after the role's kind and name.
func Check(objs []client.Object) []string {
	var out []string
	for _, o := range objs {
		var rules []rbacv1.PolicyRule
		switch r := o.(type) {
		case *rbacv1.ClusterRole:
			rules = r.Rules
		case *rbacv1.Role:
			rules = r.Rules
		default:
			continue
		}
		for _, v := range Violations(rules) {
			out = append(out, fmt.Sprintf("%T %s: %s", o, o.GetName(), v))
		}
	}
	return out
}

// wildcardImpersonation is what a "*" verb impersonates without names.
func wildcardImpersonation(r rbacv1.PolicyRule) []string {
	if !slices.Contains(r.Verbs, "*") {
		return nil
	}
	var out []string
	for group, resources := range impersonable {
		for _, res := range resources {
			if has(r.APIGroups, group) && has(r.Resources, res) {
				out = append(out, fmt.Sprintf("verbs * (so impersonate) on %s without resourceNames", res))
			}
		}
	}
	slices.Sort(out)
	return out
}

// has reports whether list names want, or "*" does.
func has(list []string, want string) bool {
	return slices.Contains(list, want) || slices.Contains(list, "*")
}

// Allows reports whether rules let verb act on the object name of resource
// in group (name empty: any object, as a create or a list asks).
func Allows(rules []rbacv1.PolicyRule, verb, group, resource, name string) bool {
	for _, r := range rules {
		if !has(r.Verbs, verb) || !has(r.APIGroups, group) || !has(r.Resources, resource) {
			continue
		}
		if len(r.ResourceNames) == 0 || (name != "" && slices.Contains(r.ResourceNames, name)) {
			return true
		}
	}
	return false
}
