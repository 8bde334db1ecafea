package layout

import (
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/component-helpers/auth/rbac/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/rbacpolicy"
	"github.com/virtflow/virtflow/kube/workloads"
)

// kubeRoles are the cluster's own roles virtflow's bindings name, by
// roleKey, with the rules the kube-apiserver bootstraps them with.
var kubeRoles = map[string][]rbacv1.PolicyRule{
	roleKey("ClusterRole", "", workloads.AuthDelegator):  workloads.AuthDelegatorRules(),
	roleKey("Role", "kube-system", workloads.AuthReader): workloads.AuthReaderRules(),
	roleKey("ClusterRole", "", "cluster-admin"):          {{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}},
}

func roleKey(kind, ns, name string) string {
	if kind == "ClusterRole" {
		return "ClusterRole/" + name
	}
	return "Role/" + ns + "/" + name
}

// roles indexes the rules of the roles among objs and of kubeRoles.
func roles(objs []client.Object) map[string][]rbacv1.PolicyRule {
	out := map[string][]rbacv1.PolicyRule{}
	for k, v := range kubeRoles {
		out[k] = v
	}
	for _, o := range objs {
		switch r := o.(type) {
		case *rbacv1.ClusterRole:
			out[roleKey("ClusterRole", "", r.Name)] = r.Rules
		case *rbacv1.Role:
			out[roleKey("Role", r.Namespace, r.Name)] = r.Rules
		}
	}
	return out
}

// refKey is the roleKey a binding in ns names.
func refKey(ref rbacv1.RoleRef, ns string) string { return roleKey(ref.Kind, ns, ref.Name) }

func boundTo(subjects []rbacv1.Subject, account string) bool {
	for _, s := range subjects {
		if s.Kind == rbacv1.ServiceAccountKind && s.Name == account && s.Namespace == installNS {
			return true
		}
	}
	return false
}

// held are the rules account (of installNS) holds in ns, or cluster-wide
// when ns is empty, through the bindings among objs.
func held(objs []client.Object, index map[string][]rbacv1.PolicyRule, account, ns string) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, o := range objs {
		switch b := o.(type) {
		case *rbacv1.ClusterRoleBinding:
			if boundTo(b.Subjects, account) {
				out = append(out, index[refKey(b.RoleRef, "")]...)
			}
		case *rbacv1.RoleBinding:
			if ns != "" && b.Namespace == ns && boundTo(b.Subjects, account) {
				out = append(out, index[refKey(b.RoleRef, ns)]...)
			}
		}
	}
	return out
}

// resources maps the kinds operators write to their API group and
// resource; a kind missing here fails the test until it is added.
var resources = map[string][2]string{
	"Deployment": {"apps", "deployments"}, "DaemonSet": {"apps", "daemonsets"},
	"ServiceAccount": {"", "serviceaccounts"}, "Service": {"", "services"}, "Secret": {"", "secrets"},
	"ConfigMap": {"", "configmaps"}, "Namespace": {"", "namespaces"},
	"ClusterRole": {rbacv1.GroupName, "clusterroles"}, "ClusterRoleBinding": {rbacv1.GroupName, "clusterrolebindings"},
	"Role": {rbacv1.GroupName, "roles"}, "RoleBinding": {rbacv1.GroupName, "rolebindings"},
	"ValidatingWebhookConfiguration":    {"admissionregistration.k8s.io", "validatingwebhookconfigurations"},
	"MutatingWebhookConfiguration":      {"admissionregistration.k8s.io", "mutatingwebhookconfigurations"},
	"ValidatingAdmissionPolicy":         {"admissionregistration.k8s.io", "validatingadmissionpolicies"},
	"ValidatingAdmissionPolicyBinding":  {"admissionregistration.k8s.io", "validatingadmissionpolicybindings"},
	"APIService":                        {"apiregistration.k8s.io", "apiservices"},
	"VirtualMachineClusterInstancetype": {"instancetype.kubevirt.io", "virtualmachineclusterinstancetypes"},
	"VirtualMachineClusterPreference":   {"instancetype.kubevirt.io", "virtualmachineclusterpreferences"},
	"Task":                              {"tekton.dev", "tasks"}, "Pipeline": {"tekton.dev", "pipelines"},
	"CustomResourceDefinition": {"apiextensions.k8s.io", "customresourcedefinitions"},
	"PodDisruptionBudget":      {"policy", "poddisruptionbudgets"},
}

// writes are what an operator does to what it renders: server-side apply
// (which creates under the object's name) and delete with its component.
// hco-operator keeps its webhooks' objects and never deletes them.
func writes(account string) []string {
	if account == "hyperconverged-cluster-operator" {
		return []string{"create", "patch"}
	}
	return []string{"create", "patch", "delete"}
}

// TestOperatorsMayWriteWhatTheyRender proves, from deploy/'s roles, that
// each operator may apply and delete every object it renders, and may
// create the roles and bindings among them, which RBAC only allows to whom
// holds their rules (or may escalate or bind them by name).
func TestOperatorsMayWriteWhatTheyRender(t *testing.T) {
	deployedObjs := deployed(t)
	for account, objs := range rendered(t) {
		index := roles(append(append([]client.Object{}, deployedObjs...), objs...))
		holds := func(ns string) []rbacv1.PolicyRule { return held(deployedObjs, index, account, ns) }
		for _, o := range objs {
			kind := o.GetObjectKind().GroupVersionKind().Kind
			gr, ok := resources[kind]
			require.True(t, ok, "%s renders %s %s: add its resource to the test", account, kind, o.GetName())
			for _, verb := range writes(account) {
				require.True(t, rbacpolicy.Allows(holds(o.GetNamespace()), verb, gr[0], gr[1], o.GetName()),
					"%s may not %s %s %s/%s", account, verb, kind, o.GetNamespace(), o.GetName())
			}
			requireGrantable(t, account, o, index, holds)
		}
	}
}

// requireGrantable fails unless the account may create o when it is a
// role (it holds its rules, or may escalate it) or a binding (it holds
// the bound role's rules where the binding applies, or may bind it).
func requireGrantable(t *testing.T, account string, o client.Object, index map[string][]rbacv1.PolicyRule, holds func(string) []rbacv1.PolicyRule) {
	t.Helper()
	var rules, have []rbacv1.PolicyRule
	var resource, verb, name string
	switch r := o.(type) {
	case *rbacv1.ClusterRole:
		rules, have, resource, verb, name = r.Rules, holds(""), "clusterroles", "escalate", r.Name
	case *rbacv1.Role:
		rules, have, resource, verb, name = r.Rules, holds(r.Namespace), "roles", "escalate", r.Name
	case *rbacv1.ClusterRoleBinding:
		rules, have, verb, name = index[refKey(r.RoleRef, "")], holds(""), "bind", r.RoleRef.Name
		resource = "clusterroles"
	case *rbacv1.RoleBinding:
		rules, have, verb, name = index[refKey(r.RoleRef, r.Namespace)], holds(r.Namespace), "bind", r.RoleRef.Name
		resource = map[string]string{"Role": "roles", "ClusterRole": "clusterroles"}[r.RoleRef.Kind]
	default:
		return
	}
	require.NotNil(t, rules, "%s %s names a role that is not there", o.GetObjectKind().GroupVersionKind().Kind, o.GetName())
	if rbacpolicy.Allows(have, verb, rbacv1.GroupName, resource, name) {
		return
	}
	covered, missing := validation.Covers(have, rules)
	require.True(t, covered, "%s may not grant what %s %s/%s holds, missing %v",
		account, o.GetObjectKind().GroupVersionKind().Kind, o.GetNamespace(), o.GetName(), missing)
}
