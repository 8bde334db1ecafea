package workloads

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Verb sets the components' rules are written with.
var (
	// Read is what a cached client's informer and its Gets need.
	Read = []string{"get", "list", "watch"}
	// Write is what creating, applying and deleting an object needs.
	Write = []string{"get", "create", "update", "patch", "delete"}
	// LeaderElection is what controller-runtime's lease lock does.
	LeaderElection = []string{"get", "create", "update"}
	// Record is what an event recorder does.
	Record = []string{"create", "patch", "update"}
)

// Rule grants verbs on resources of group.
func Rule(group string, verbs []string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, Verbs: verbs}
}

// Named grants verbs on the objects of resource named names only.
func Named(group, resource string, verbs []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, ResourceNames: names, Verbs: verbs}
}

// The cluster's own roles an aggregated API server is bound to, as the
// kube-apiserver bootstraps them.
const (
	// AuthDelegator lets a server review tokens and ask whether a user
	// may do something.
	AuthDelegator = "system:auth-delegator"
	// AuthReader, a Role in kube-system, reads the front proxy's client CA
	// and allowed names.
	AuthReader = "extension-apiserver-authentication-reader"
	// AuthConfigMap is what AuthReader reads.
	AuthConfigMap = "extension-apiserver-authentication"
)

// AuthDelegatorRules are AuthDelegator's rules: whoever binds it must
// hold them.
func AuthDelegatorRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		Rule("authentication.k8s.io", []string{"create"}, "tokenreviews"),
		Rule("authorization.k8s.io", []string{"create"}, "subjectaccessreviews"),
	}
}

// AuthReaderRules are AuthReader's rules in kube-system.
func AuthReaderRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{Named("", "configmaps", Read, AuthConfigMap)}
}

// Access is what a component's ServiceAccount may do, no more: the rules
// its code needs, modelled on upstream's role for the same component.
type Access struct {
	// Role names the component's ClusterRole and Role (upstream's name);
	// the account's when empty. Bindings carry the account's name.
	Role string
	// Cluster rules go in a ClusterRole bound cluster-wide.
	Cluster []rbacv1.PolicyRule
	// Namespaced rules go in a Role in the component's namespace.
	Namespaced []rbacv1.PolicyRule
	// APIServer binds what an aggregated API server needs: AuthDelegator
	// cluster-wide and AuthReader in kube-system.
	APIServer bool
}

func (a Access) role(account string) string {
	if a.Role != "" {
		return a.Role
	}
	return account
}

// AuthDelegatorBinding is an API server's ClusterRoleBinding to
// AuthDelegator.
func AuthDelegatorBinding(account string) string { return account + "-auth-delegator" }

// AuthReaderBinding is the RoleBinding in kube-system to AuthReader.
func AuthReaderBinding(account string) string { return account + "-auth-reader" }

// Identity is a component's ServiceAccount in ns, its roles with access's
// rules, and their bindings to the account.
func Identity(ns, account string, access Access, labels map[string]string) []client.Object {
	sa := &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: account, Labels: labels},
	}
	objs := []client.Object{sa}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: account}}
	role := access.role(account)
	if len(access.Cluster) > 0 {
		objs = append(objs, &rbacv1.ClusterRole{
			TypeMeta:   rbacType("ClusterRole"),
			ObjectMeta: metav1.ObjectMeta{Name: role, Labels: labels},
			Rules:      access.Cluster,
		}, clusterBinding(account, role, subject, labels))
	}
	if len(access.Namespaced) > 0 {
		objs = append(objs, &rbacv1.Role{
			TypeMeta:   rbacType("Role"),
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: role, Labels: labels},
			Rules:      access.Namespaced,
		}, roleBinding(ns, account, role, subject, labels))
	}
	if access.APIServer {
		objs = append(objs, clusterBinding(AuthDelegatorBinding(account), AuthDelegator, subject, labels),
			roleBinding("kube-system", AuthReaderBinding(account), AuthReader, subject, labels))
	}
	return objs
}

func rbacType(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: kind}
}

func clusterBinding(name, role string, subjects []rbacv1.Subject, labels map[string]string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   rbacType("ClusterRoleBinding"),
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   subjects,
	}
}

func roleBinding(ns, name, role string, subjects []rbacv1.Subject, labels map[string]string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   rbacType("RoleBinding"),
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role},
		Subjects:   subjects,
	}
}
