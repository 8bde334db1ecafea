package layout

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/rbacpolicy"
)

// allowed are the roles that break rbacpolicy on purpose, by name, with
// the violation they may have and why.
var allowed = map[string]struct{ violation, why string }{
	"generate-ssh-keys-task": {"verbs * on secrets", "upstream kubevirt-tekton-tasks' role, which writes the key pair's " +
		"Secrets; ssp-operator binds it in the tasks' namespace only"},
	"ssp-operator-tekton-tasks": {"verbs * on secrets", "ssp-operator must hold generate-ssh-keys-task's rules to bind it, " +
		"and is given them in the tasks' namespace only (deploy/pipelines)"},
	"virtflow-worker": {"impersonate on [serviceaccounts]", "durable tasks act as the service account their CustomRun " +
		"names, which any user may choose: service accounts only, never users or groups"},
}

// everything is every object deploy/ holds and every operator renders.
func everything(t *testing.T) []client.Object {
	t.Helper()
	objs := slices.Clone(deployed(t))
	for _, r := range rendered(t) {
		objs = append(objs, r...)
	}
	return objs
}

// TestNoRoleGrantsWhatTheTrustBoundariesForbid checks every Role and
// ClusterRole of deploy/ and of the operators against rbacpolicy: no "*"
// on RBAC objects, secrets, webhooks or API services, no escalate, bind or
// impersonate without names, but for the allowed list.
func TestNoRoleGrantsWhatTheTrustBoundariesForbid(t *testing.T) {
	used := map[string]bool{}
	for _, v := range rbacpolicy.Check(everything(t)) {
		excused := false
		for name, a := range allowed {
			if strings.Contains(v, " "+name+": "+a.violation) {
				excused, used[name] = true, true
			}
		}
		require.True(t, excused, "%s: add a narrower rule, or an entry to allowed saying why", v)
	}
	for name := range allowed {
		require.True(t, used[name], "allowed lists %s, which no longer needs it", name)
	}
}

// podSpec is the pod template of a workload, nil for other objects.
func podSpec(o client.Object) *corev1.PodSpec {
	switch w := o.(type) {
	case *appsv1.Deployment:
		return &w.Spec.Template.Spec
	case *appsv1.DaemonSet:
		return &w.Spec.Template.Spec
	}
	return nil
}

// TestEveryPodRunsAsItsOwnAccountOrMountsNoToken: a workload of deploy/ or
// of an operator names a ServiceAccount that is there and no other
// workload shares, or mounts no token at all.
func TestEveryPodRunsAsItsOwnAccountOrMountsNoToken(t *testing.T) {
	sets := map[string][]client.Object{"cluster": overlay(t, "cluster"), "embedded": overlay(t, "embedded")}
	for account, objs := range rendered(t) {
		sets[account] = objs
	}
	for set, objs := range sets {
		accounts, users := map[string]bool{}, map[string]string{}
		for _, o := range objs {
			if sa, ok := o.(*corev1.ServiceAccount); ok {
				accounts[sa.Namespace+"/"+sa.Name] = true
			}
		}
		for _, o := range objs {
			spec := podSpec(o)
			if spec == nil {
				continue
			}
			if spec.AutomountServiceAccountToken != nil && !*spec.AutomountServiceAccountToken {
				continue
			}
			account := o.GetNamespace() + "/" + spec.ServiceAccountName
			require.NotEmpty(t, spec.ServiceAccountName, "%s: %s runs as default", set, o.GetName())
			require.True(t, accounts[account], "%s: %s runs as %s, which is not there", set, o.GetName(), account)
			require.Empty(t, users[account], "%s: %s and %s share %s", set, o.GetName(), users[account], account)
			users[account] = o.GetName()
		}
	}
}

// TestEveryBindingNamesARoleThatIsThere also keeps cluster-admin to the
// embedded node's console admin and the in-process benchmark.
func TestEveryBindingNamesARoleThatIsThere(t *testing.T) {
	objs := everything(t)
	index := roles(objs)
	admins := map[string]bool{}
	for _, o := range objs {
		var ref rbacv1.RoleRef
		switch b := o.(type) {
		case *rbacv1.ClusterRoleBinding:
			ref = b.RoleRef
		case *rbacv1.RoleBinding:
			ref = b.RoleRef
		default:
			continue
		}
		require.Contains(t, index, refKey(ref, o.GetNamespace()), "%T %s names %s %s", o, o.GetName(), ref.Kind, ref.Name)
		if ref.Name == "cluster-admin" {
			admins[o.GetName()] = true
		}
	}
	require.Equal(t, map[string]bool{"virtflow-console-admin": true, "virtflow-inprocess": true}, admins)
	require.NotContains(t, index, roleKey("ClusterRole", "", "virtflow"), "the wildcard role is gone")
}
