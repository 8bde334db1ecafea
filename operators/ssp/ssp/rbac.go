package ssp

import (
	rbacv1 "k8s.io/api/rbac/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
)

// validatorRoleName is upstream's role of the validator.
const validatorRoleName = "template:view"

// ValidatorAccess is upstream's: the validator reads templates and VMs,
// nothing more.
func ValidatorAccess() workloads.Access {
	return workloads.Access{Role: validatorRoleName, Cluster: []rbacv1.PolicyRule{
		workloads.Rule("template.openshift.io", workloads.Read, "templates"),
		workloads.Rule(kubevirtv1.SchemeGroupVersion.Group, workloads.Read, "virtualmachines"),
	}}
}

// ValidatorRBAC is the validator's ServiceAccount, role and binding in ns,
// as Render returns them.
func ValidatorRBAC(ns string) []client.Object {
	return workloads.Identity(ns, validatorSA, ValidatorAccess(), labels())
}

// OperandRBAC are the roles and bindings ssp-operator writes for owner's
// operands besides the validator's: everyone's read access to the common
// templates' namespace, and the boot sources' view and edit roles.
func OperandRBAC(owner client.Object) ([]client.Object, error) {
	opts, err := templateOptions(owner)
	if err != nil {
		return nil, err
	}
	p, err := bootPlan(owner)
	if err != nil {
		return nil, err
	}
	return append(sharedViewer(opts.Namespace), p.ViewRole, p.ViewRoleBinding, p.EditRole), nil
}
