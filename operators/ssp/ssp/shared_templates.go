package ssp

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// OpenShift lets every authenticated user read the templates of its
// `openshift` namespace (Role shared-resource-viewer, bound to
// system:authenticated by shared-resource-viewers); the common templates
// live there, and users, the console and the create-vm-from-template task
// process them from their own namespaces. The templates' namespace gets
// the same grant here.
const (
	sharedViewerRole    = "shared-resource-viewer"
	sharedViewerBinding = "shared-resource-viewers"
)

// sharedViewer is the Role and RoleBinding that let anyone authenticated
// read the templates of ns.
func sharedViewer(ns string) []client.Object {
	role := &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sharedViewerRole},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"template.openshift.io"}, Resources: []string{"templates"},
			Verbs: []string{"get", "list", "watch"},
		}},
	}
	binding := &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sharedViewerBinding},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sharedViewerRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:authenticated"}},
	}
	return []client.Object{role, binding}
}

// shareTemplates applies the shared viewer grant in ns where it is
// missing; a resync of unchanged templates writes nothing.
func (d *Deployer) shareTemplates(ctx context.Context, ns string) error {
	for _, obj := range sharedViewer(ns) {
		existing := obj.DeepCopyObject().(client.Object)
		err := d.apiReader().Get(ctx, client.ObjectKeyFromObject(obj), existing)
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading %s %s in %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), ns, err)
		}
		if err := d.applyObject(ctx, obj); err != nil {
			return fmt.Errorf("letting everyone read the templates of %s: %w", ns, err)
		}
	}
	return nil
}

// unshareTemplates removes the shared viewer grant from ns.
func (d *Deployer) unshareTemplates(ctx context.Context, ns string) error {
	for _, obj := range sharedViewer(ns) {
		if err := d.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing %s %s from %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), ns, err)
		}
	}
	return nil
}
