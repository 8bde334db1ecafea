package kubevirt

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
)

// The components' service accounts, upstream's names; each also names its
// ClusterRole, Role and bindings.
const (
	APIServerAccount  = "kubevirt-apiserver"
	ControllerAccount = "kubevirt-controller"
	HandlerAccount    = "kubevirt-handler"
)

// Accounts are the components' service accounts, by component.
var Accounts = map[string]string{"virt-api": APIServerAccount, "virt-controller": ControllerAccount, "virt-handler": HandlerAccount}

const (
	kubevirtGroup     = "kubevirt.io"
	instancetypeGroup = "instancetype.kubevirt.io"
	cdiGroup          = "cdi.kubevirt.io"
)

var (
	instancetypes = []string{"virtualmachineinstancetypes", "virtualmachineclusterinstancetypes",
		"virtualmachinepreferences", "virtualmachineclusterpreferences"}
	crud = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
)

// Access is what the component's account may do.
func Access(component string) workloads.Access {
	switch component {
	case "virt-api":
		return workloads.Access{Cluster: apiServerRules(), Namespaced: apiServerNamespaced(), APIServer: true}
	case "virt-controller":
		return workloads.Access{Cluster: controllerRules(), Namespaced: []rbacv1.PolicyRule{
			workloads.Rule("coordination.k8s.io", workloads.LeaderElection, "leases"),
		}}
	case "virt-handler":
		return workloads.Access{Cluster: handlerRules(), Namespaced: handlerNamespaced()}
	}
	return workloads.Access{}
}

// RBAC is every component's ServiceAccount, roles and bindings in ns, as
// Render returns them.
func RBAC(ns string) []client.Object {
	var objs []client.Object
	for _, c := range Components {
		objs = append(objs, identity(ns, c)...)
	}
	return objs
}

func identity(ns, component string) []client.Object {
	account := Accounts[component]
	return workloads.Identity(ns, account, Access(component), labels(account))
}

// apiServerRules are upstream's virt-api ClusterRole less what virtflow's
// virt-api does not do (snapshots, exports, backups, migration policies,
// DataVolume and namespace reads, pod deletes).
func apiServerRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		// The VM actions read through the manager's cache and patch.
		workloads.Rule(kubevirtGroup, []string{"get", "list", "watch", "patch"}, "virtualmachines", "virtualmachineinstances"),
		workloads.Rule(kubevirtGroup, []string{"patch"}, "virtualmachines/status"),
		// The eviction interceptor marks a launcher's VMI for evacuation
		// (status.evacuationNodeName), evacuate/cancel unmarks it.
		workloads.Rule(kubevirtGroup, []string{"patch"}, "virtualmachineinstances/status"),
		// The migrate subresource creates migrations; their admission
		// looks for one already in flight (a direct list, not a cache).
		workloads.Rule(kubevirtGroup, []string{"create", "list"}, "virtualmachineinstancemigrations"),
		// The KubeVirt delete guard counts the workloads left; presets
		// are merged into new VMIs.
		workloads.Rule(kubevirtGroup, []string{"list"}, "virtualmachineinstancereplicasets", "virtualmachineinstancepresets"),
		// Admission follows the KubeVirt CR's feature gates.
		workloads.Rule(kubevirtGroup, []string{"get", "list", "watch"}, "kubevirts"),
		workloads.Rule(instancetypeGroup, []string{"get"}, instancetypes...),
		workloads.Rule("apps", []string{"get"}, "controllerrevisions"),
		// objectgraph lists the launcher pods.
		workloads.Rule("", []string{"get", "list"}, "pods"),
		// evacuate/cancel refuses while the VMI's node carries the drain
		// taint, as upstream's (whose virt-api may get nodes too).
		workloads.Rule("", []string{"get"}, "nodes"),
	}
}

// apiServerNamespaced lets virt-api read the node agents' API tokens,
// which virt-handler publishes in the install namespace (upstream's
// virt-api reaches virt-handler with a client certificate instead).
func apiServerNamespaced() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{workloads.Rule("", []string{"get"}, "secrets")}
}

// controllerRules are upstream's virt-controller ClusterRole for what
// virtflow's controllers do (VMs, VMIs, replica sets, pools, their launcher
// pods and DataVolumes), without its kubevirt.io and cdi.kubevirt.io
// wildcards and the snapshot, export, backup, clone and migration rules.
func controllerRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		workloads.Rule(kubevirtGroup, crud, "virtualmachines", "virtualmachineinstances", "virtualmachineinstancereplicasets"),
		workloads.Rule(kubevirtGroup, []string{"update", "patch"}, "virtualmachines/status",
			"virtualmachineinstances/status", "virtualmachineinstancereplicasets/status"),
		// Owner references that block deletion, under
		// OwnerReferencesPermissionEnforcement.
		workloads.Rule(kubevirtGroup, []string{"update"}, "virtualmachines/finalizers",
			"virtualmachineinstances/finalizers", "virtualmachineinstancereplicasets/finalizers"),
		// Migrations: held by a finalizer until their workflow ends, their
		// phase mirrored; evacuations create them.
		workloads.Rule(kubevirtGroup, []string{"get", "list", "watch", "create", "update", "patch"}, "virtualmachineinstancemigrations"),
		// Evacuations follow the cluster's eviction strategy and migration
		// limits.
		workloads.Rule(kubevirtGroup, workloads.Read, "kubevirts"),
		// A node tainted for draining (the deprecated kubevirt.io/drain)
		// is evacuated.
		workloads.Rule("", workloads.Read, "nodes"),
		workloads.Rule(kubevirtGroup, []string{"update", "patch"}, "virtualmachineinstancemigrations/status"),
		workloads.Rule(kubevirtGroup, []string{"update"}, "virtualmachineinstancemigrations/finalizers"),
		workloads.Rule("pool.kubevirt.io", []string{"get", "list", "watch", "update", "patch"}, "virtualmachinepools"),
		workloads.Rule("pool.kubevirt.io", []string{"update", "patch"}, "virtualmachinepools/status", "virtualmachinepools/finalizers"),
		workloads.Rule(instancetypeGroup, workloads.Read, instancetypes...),
		workloads.Rule("apps", []string{"get", "list", "watch", "create", "delete"}, "controllerrevisions"),
		workloads.Rule("", []string{"get", "list", "watch", "create", "delete"}, "pods"),
		// Block claims, and a pool's claims freed from a deleted VM.
		workloads.Rule("", []string{"get", "list", "watch", "patch"}, "persistentvolumeclaims"),
		workloads.Rule(cdiGroup, []string{"get", "list", "watch", "create", "patch"}, "datavolumes"),
		// A secondary network's definition: its resource name, or why the
		// launcher pod cannot be made.
		workloads.Rule("k8s.cni.cncf.io", []string{"get"}, "network-attachment-definitions"),
		workloads.Rule("", workloads.Record, "events"),
	}
}

// handlerRules are upstream's virt-handler ClusterRole plus what its node
// worker's disk activities read, which upstream's importer pods do
// (virtflow's node worker runs in virt-handler).
func handlerRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		workloads.Rule(kubevirtGroup, []string{"get", "list", "watch", "update", "patch"}, "virtualmachineinstances"),
		workloads.Rule(kubevirtGroup, []string{"update", "patch"}, "virtualmachineinstances/status"),
		// update: the agent labels its node schedulable.
		workloads.Rule("", []string{"get", "list", "watch", "update", "patch"}, "nodes"),
		// virtflow's agent hands launcher pods their VMIs: it reads the
		// pods on its node.
		workloads.Rule("", workloads.Read, "pods"),
		// The launchers' claims and volumes, and the DataVolumes a launcher
		// waits for; patch: the disk activities' notes on a claim. Clone
		// authorization reads the volumes and asks SubjectAccessReviews.
		workloads.Rule("", []string{"get", "list", "watch", "patch"}, "persistentvolumeclaims"),
		workloads.Rule("", workloads.Read, "persistentvolumes"),
		// The disk activities check a claim against the DataVolume or
		// import source that owns it, an import against CDIConfig's
		// insecure registries, a clone against its source (a claim or a
		// DataSource) and the requesting namespace.
		workloads.Rule(cdiGroup, workloads.Read, "datavolumes", "volumeimportsources", "datasources", "cdiconfigs"),
		workloads.Rule("", []string{"get"}, "namespaces"),
		workloads.Rule("authorization.k8s.io", []string{"create"}, "subjectaccessreviews"),
		// An import's credentials and CA bundle, which its DataVolume
		// names in its own namespace: upstream's importer pod mounts them
		// there; the node worker reads them, by name only (no list).
		workloads.Rule("", []string{"get"}, "secrets", "configmaps"),
		workloads.Rule("", workloads.Record, "events"),
	}
}

// handlerNamespaced lets each agent publish its API token and address in
// the install namespace, where virt-api reads them.
func handlerNamespaced() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{workloads.Rule("", []string{"get", "create", "update"}, "secrets")}
}
