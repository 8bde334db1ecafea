//go:build integration

package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
)

// roleProbe is something no component may do, asked of the API server as
// a SubjectAccessReview in the component's name.
type roleProbe struct {
	what                      string
	verb, group, resource, ns string
}

var roleProbes = []roleProbe{
	{what: "everything (cluster-admin)", verb: "*", group: "*", resource: "*"},
	{what: "list secrets cluster-wide", verb: "list", resource: "secrets"},
	{what: "read kube-system's secrets", verb: "get", resource: "secrets", ns: "kube-system"},
	{what: "write any ClusterRole", verb: "update", group: "rbac.authorization.k8s.io", resource: "clusterroles"},
	{what: "escalate any ClusterRole", verb: "escalate", group: "rbac.authorization.k8s.io", resource: "clusterroles"},
	{what: "bind any ClusterRole", verb: "bind", group: "rbac.authorization.k8s.io", resource: "clusterroles"},
	{what: "create ClusterRoleBindings", verb: "create", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings"},
	{what: "write any validating webhook", verb: "update", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations"},
	{what: "delete any mutating webhook", verb: "delete", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations"},
	{what: "write any APIService", verb: "update", group: "apiregistration.k8s.io", resource: "apiservices"},
	{what: "impersonate users", verb: "impersonate", resource: "users"},
	{what: "impersonate groups", verb: "impersonate", resource: "groups"},
	{what: "impersonate service accounts", verb: "impersonate", resource: "serviceaccounts"},
	{what: "exec into pods", verb: "create", resource: "pods/exec"},
}

// roleExceptions are the probes a component passes on purpose; the
// comment beside its rule says why (docs/trust.md has the table).
var roleExceptions = map[string]map[string]bool{
	// The disk activities read an import's credentials by name where its
	// DataVolume names them; virt-operator holds what it grants.
	"kubevirt-handler":  {"read kube-system's secrets": true},
	"kubevirt-operator": {"read kube-system's secrets": true},
	// A cron's credentials by name; durable tasks act as their CustomRun's
	// service account.
	"virtflow-worker": {"read kube-system's secrets": true, "impersonate service accounts": true},
}

// TestNoComponentHoldsMoreThanItsRole asks the API server, for every
// ServiceAccount of the install namespace, whether it may do what no
// component may: only the listed, commented exceptions pass.
func TestNoComponentHoldsMoreThanItsRole(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	accounts := &corev1.ServiceAccountList{}
	require.NoError(t, n.c.List(ctx, accounts, crclient.InNamespace(platform.Namespace)))
	require.Greater(t, len(accounts.Items), 10, "every component has its own account")
	for _, sa := range accounts.Items {
		if sa.Name == "default" || sa.Name == platform.ConsoleAdmin {
			continue // console-admin is a login, bound to cluster-admin on purpose
		}
		for _, p := range roleProbes {
			allowed := mayDo(t, n, sa.Name, p)
			require.Equal(t, roleExceptions[sa.Name][p.what], allowed, "%s may %s: %v", sa.Name, p.what, allowed)
		}
	}
	pods := &corev1.PodList{}
	require.NoError(t, n.c.List(ctx, pods, crclient.InNamespace(platform.Namespace)))
	for _, p := range pods.Items {
		token := p.Spec.AutomountServiceAccountToken == nil || *p.Spec.AutomountServiceAccountToken
		require.False(t, token && (p.Spec.ServiceAccountName == "" || p.Spec.ServiceAccountName == "default"),
			"pod %s mounts the namespace's default token", p.Name)
	}
}

func mayDo(t *testing.T, n *upRun, account string, p roleProbe) bool {
	t.Helper()
	resource, sub, _ := strings.Cut(p.resource, "/")
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   fmt.Sprintf("system:serviceaccount:%s:%s", platform.Namespace, account),
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + platform.Namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: p.ns, Verb: p.verb, Group: p.group, Resource: resource, Subresource: sub,
		},
	}}
	require.NoError(t, n.c.Create(context.Background(), sar))
	return sar.Status.Allowed
}
