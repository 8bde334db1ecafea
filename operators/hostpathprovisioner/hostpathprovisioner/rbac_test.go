package hostpathprovisioner

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	"github.com/virtflow/virtflow/kube/rbacpolicy"
)

func TestTheCSIDaemonSetRunsAsItsAccountWhoseRolesKeepThePolicy(t *testing.T) {
	in := Install{Namespace: "ns", Image: "img", ProvisionerImage: "prov:v5", KubeletRoot: "/k", HostRoot: "/h"}
	objs, err := in.Render(context.Background(), nil, &hppv1beta1.HostPathProvisioner{ObjectMeta: metav1.ObjectMeta{Name: "hpp"}}, CSIDaemonSet)
	require.NoError(t, err)
	require.Equal(t, "hostpath-provisioner-admin-csi", objs[0].(*appsv1.DaemonSet).Spec.Template.Spec.ServiceAccountName)
	require.Empty(t, rbacpolicy.Check(objs))
	var cluster []rbacv1.PolicyRule
	for _, o := range objs {
		if r, ok := o.(*rbacv1.ClusterRole); ok {
			require.Equal(t, "hostpath-provisioner-admin-csi", r.Name, "upstream's name")
			cluster = r.Rules
		}
	}
	require.True(t, rbacpolicy.Allows(cluster, "create", "", "persistentvolumes", ""), "the external provisioner creates volumes")
	require.True(t, rbacpolicy.Allows(cluster, "patch", "", "nodes", "node-1"), "the driver labels its node's topology")
	require.False(t, rbacpolicy.Allows(cluster, "get", "", "secrets", "any"))
	require.False(t, rbacpolicy.Allows(cluster, "create", "", "pods", ""))
}
