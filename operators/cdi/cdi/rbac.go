package cdi

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
)

// The components' service accounts, upstream's names.
const (
	ControllerAccount  = "cdi-sa"
	APIServerAccount   = "cdi-apiserver"
	UploadProxyAccount = UploadProxy
	// controllerRole is upstream's name of cdi-sa's ClusterRole.
	controllerRole = "cdi"
)

// Accounts are the components' service accounts, by component.
var Accounts = map[string]string{"cdi-deployment": ControllerAccount, "cdi-apiserver": APIServerAccount, "cdi-uploadproxy": UploadProxyAccount}

const cdiGroup = "cdi.kubevirt.io"

// cdiKinds are the kinds cdi-deployment reconciles or writes.
var cdiKinds = []string{"datavolumes", "datasources", "dataimportcrons", "storageprofiles", "cdiconfigs", "volumeimportsources", "cdis"}

// Access is what the component's account may do.
func Access(component string) workloads.Access {
	switch component {
	case "cdi-deployment":
		return workloads.Access{Role: controllerRole, Cluster: controllerRules(), Namespaced: []rbacv1.PolicyRule{
			workloads.Rule("coordination.k8s.io", workloads.LeaderElection, "leases"),
		}}
	case "cdi-apiserver":
		return workloads.Access{Cluster: apiServerRules(), APIServer: true}
	case "cdi-uploadproxy":
		return workloads.Access{Cluster: uploadProxyRules()}
	}
	return workloads.Access{}
}

// RBAC is every component's ServiceAccount, roles and bindings in ns, as
// Render returns them.
func RBAC(ns string) []client.Object {
	var objs []client.Object
	for _, c := range Components {
		objs = append(objs, identity(ns, c, labels(Accounts[c]))...)
	}
	return objs
}

func identity(ns, component string, l map[string]string) []client.Object {
	return workloads.Identity(ns, Accounts[component], Access(component), l)
}

// controllerRules are upstream's cdi ClusterRole for what virtflow's
// controllers do: its cdi.kubevirt.io wildcard spelled out, its claims,
// volumes and binder pods; without snapshots, cron jobs, image streams and
// OpenShift's config, and without the token reviews and secrets (virtflow
// runs no importer or upload server pods of its own).
func controllerRules() []rbacv1.PolicyRule {
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	var sub []string
	for _, k := range cdiKinds {
		sub = append(sub, k+"/status", k+"/finalizers")
	}
	return []rbacv1.PolicyRule{
		workloads.Rule(cdiGroup, all, cdiKinds...),
		workloads.Rule(cdiGroup, []string{"update", "patch"}, sub...),
		workloads.Rule("", []string{"get", "list", "watch", "create", "update", "patch", "delete"}, "persistentvolumeclaims"),
		workloads.Rule("", []string{"update"}, "persistentvolumeclaims/finalizers"),
		// A populated prime claim's volume is handed to its target claim.
		workloads.Rule("", []string{"get", "list", "watch", "update"}, "persistentvolumes"),
		// The binder pods that get a WaitForFirstConsumer claim scheduled.
		workloads.Rule("", []string{"get", "list", "watch", "create", "delete"}, "pods"),
		// CDIConfig follows cdi-uploadproxy's Service and CA bundle.
		workloads.Rule("", workloads.Read, "services", "configmaps"),
		workloads.Rule("storage.k8s.io", workloads.Read, "storageclasses"),
		workloads.Rule("", workloads.Record, "events"),
	}
}

// apiServerRules are upstream's cdi-apiserver ClusterRole for what the
// webhooks and the upload token API read.
func apiServerRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		// Clone authorization asks whether the requester may clone.
		workloads.Rule("authorization.k8s.io", []string{"create"}, "subjectaccessreviews"),
		workloads.Rule("", []string{"get"}, "namespaces", "persistentvolumeclaims"),
		workloads.Rule(cdiGroup, []string{"get"}, "datasources", "cdiconfigs", "cdis"),
		// The CDI uninstall guard counts the DataVolumes left.
		workloads.Rule(cdiGroup, []string{"list"}, "datavolumes"),
	}
}

// uploadProxyRules let cdi-uploadproxy find a token's claim and its
// DataVolume; upstream's proxy gets claims only, virtflow's reads both
// through its cache.
func uploadProxyRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		workloads.Rule("", workloads.Read, "persistentvolumeclaims"),
		workloads.Rule(cdiGroup, workloads.Read, "datavolumes"),
	}
}
