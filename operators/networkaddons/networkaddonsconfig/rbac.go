package networkaddonsconfig

import (
	rbacv1 "k8s.io/api/rbac/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operators/networkaddons/kubemacpool"
)

// kubeMacPoolRole is upstream's role name.
const kubeMacPoolRole = "kubemacpool-manager-role"

// KubeMacPoolAccess is what kubemacpool's code does, narrower than
// upstream's role: it reads VMs (to rebuild, commit, release and expire)
// and namespaces (their opt-out label), never writes either, elects its
// leader, records events and journals its reservations in its namespace. Its certificate is the
// operator's to issue, so it needs no Secret or webhook configuration.
func KubeMacPoolAccess() workloads.Access {
	return workloads.Access{Role: kubeMacPoolRole,
		Cluster: []rbacv1.PolicyRule{
			workloads.Rule(kubevirtv1.SchemeGroupVersion.Group, workloads.Read, "virtualmachines"),
			workloads.Rule("", workloads.Read, "namespaces"),
		},
		Namespaced: []rbacv1.PolicyRule{
			workloads.Rule("coordination.k8s.io", workloads.LeaderElection, "leases"),
			workloads.Rule("", workloads.Record, "events"),
			// Its reservation journal, written by server-side apply.
			workloads.Named("", "configmaps", []string{"get", "create", "update", "patch"}, kubemacpool.JournalConfigMap),
		},
	}
}

// KubeMacPoolRBAC is kubemacpool's ServiceAccount, roles and bindings in ns.
func KubeMacPoolRBAC(ns string) []client.Object {
	return workloads.Identity(ns, kubeMacPoolSA, KubeMacPoolAccess(), kmpLabels())
}
