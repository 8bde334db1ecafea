//go:build integration

package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

func allowed(t *testing.T, c crclient.Client, ns, user, group, resource, sub, verb string) bool {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: ns, Group: group, Resource: resource, Subresource: sub, Verb: verb, Name: "vm1",
		},
	}}
	require.NoError(t, c.Create(context.Background(), sar))
	return sar.Status.Allowed
}

func bind(t *testing.T, c crclient.Client, ns, user, role string) {
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user + "-" + role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user, APIGroup: rbacv1.GroupName}},
		RoleRef:    rbacv1.RoleRef{Kind: "ClusterRole", Name: role, APIGroup: rbacv1.GroupName},
	}
	require.NoError(t, c.Create(context.Background(), rb))
	t.Cleanup(func() { _ = c.Delete(context.Background(), rb) })
}

// TestAggregatedRolesGiveViewersSightButNotControl relies on the real
// kube-controller-manager aggregating kubevirt.io:view/edit into the
// built-in view/edit roles, and the real RBAC authorizer, on the roles
// deploy/ installs.
func TestAggregatedRolesGiveViewersSightButNotControl(t *testing.T) {
	n := onNode(t)
	ns := n.namespace(t)
	allowed := func(t *testing.T, user, group, resource, sub, verb string) bool {
		return allowed(t, n.c, ns, user, group, resource, sub, verb)
	}
	bind(t, n.c, ns, "alice-viewer", "view")
	bind(t, n.c, ns, "bob-editor", "edit")
	require.Eventually(t, func() bool {
		return allowed(t, "alice-viewer", "kubevirt.io", "virtualmachines", "", "get")
	}, time.Minute, 200*time.Millisecond, "view did not aggregate kubevirt.io:view")
	require.False(t, allowed(t, "alice-viewer", "subresources.kubevirt.io", "virtualmachines", "start", "update"), "a viewer cannot start a VM")
	require.False(t, allowed(t, "alice-viewer", "subresources.kubevirt.io", "virtualmachineinstances", "console", "get"), "a viewer cannot open a console")
	require.False(t, allowed(t, "alice-viewer", "kubevirt.io", "virtualmachines", "", "delete"))

	require.Eventually(t, func() bool {
		return allowed(t, "bob-editor", "subresources.kubevirt.io", "virtualmachines", "start", "update")
	}, time.Minute, 200*time.Millisecond, "edit did not aggregate kubevirt.io:edit")
	require.True(t, allowed(t, "bob-editor", "subresources.kubevirt.io", "virtualmachineinstances", "console", "get"))
	require.True(t, allowed(t, "bob-editor", "kubevirt.io", "virtualmachines", "", "create"))

	// CDI's roles: editors upload and create DataVolumes; viewers may use
	// the namespace's claims as clone sources but not change anything.
	require.Eventually(t, func() bool {
		return allowed(t, "bob-editor", "upload.cdi.kubevirt.io", "uploadtokenrequests", "", "create")
	}, time.Minute, 200*time.Millisecond, "edit did not aggregate cdi.kubevirt.io:edit")
	require.True(t, allowed(t, "bob-editor", "cdi.kubevirt.io", "datavolumes", "", "create"))
	require.Eventually(t, func() bool {
		return allowed(t, "alice-viewer", "cdi.kubevirt.io", "datavolumes", "source", "create")
	}, time.Minute, 200*time.Millisecond, "view did not aggregate cdi.kubevirt.io:view")
	require.False(t, allowed(t, "alice-viewer", "upload.cdi.kubevirt.io", "uploadtokenrequests", "", "create"))
	require.False(t, allowed(t, "alice-viewer", "cdi.kubevirt.io", "datavolumes", "", "create"))
}
