package hostpathprovisioner

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
)

// Access is what the CSI DaemonSet's pods may do: upstream's
// hostpath-provisioner-admin-csi roles, which are the external
// provisioner's, less the snapshot and capacity rules of features virtflow
// leaves off, plus what virtflow's driver does itself.
func Access() workloads.Access {
	return workloads.Access{Cluster: csiRules(), Namespaced: []rbacv1.PolicyRule{
		// The external provisioner's leader election, as upstream grants.
		workloads.Rule("coordination.k8s.io", workloads.LeaderElection, "leases"),
	}}
}

// RBAC is the DaemonSet's ServiceAccount (upstream's
// hostpath-provisioner-admin-csi, which also names its roles and
// bindings) in ns, as Render returns it.
func RBAC(ns string, labels map[string]string) []client.Object {
	return workloads.Identity(ns, serviceAccount, Access(), labels)
}

func csiRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		workloads.Rule("", []string{"get", "list", "watch", "create", "delete", "patch"}, "persistentvolumes"),
		workloads.Rule("", []string{"get", "list", "watch", "update"}, "persistentvolumeclaims"),
		workloads.Rule("storage.k8s.io", workloads.Read, "storageclasses", "csinodes", "volumeattachments"),
		// The snapshots a claim may be restored from, as external-provisioner
		// v5.3.0's own deploy/kubernetes/rbac.yaml grants.
		workloads.Rule("snapshot.storage.k8s.io", []string{"get", "list"}, "volumesnapshots", "volumesnapshotcontents"),
		// patch: the driver labels its node with its topology key, which
		// upstream's kubelet does on the driver's registration.
		workloads.Rule("", []string{"get", "list", "watch", "patch"}, "nodes"),
		// The driver serves the pools HostPathProvisioner CRs define.
		workloads.Rule("hostpathprovisioner.kubevirt.io", workloads.Read, "hostpathprovisioners"),
		workloads.Rule("", []string{"list", "watch", "create", "update", "patch"}, "events"),
	}
}
