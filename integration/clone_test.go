//go:build integration

package integration

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	cdic "github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/node/handler"
)

// grant binds user to a role of rules in ns.
func grant(t *testing.T, ns, name, user string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
	require.NoError(t, env.admin.Create(ctx, role))
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: user, APIGroup: "rbac.authorization.k8s.io"}},
		RoleRef:  rbacv1.RoleRef{Kind: "Role", Name: name, APIGroup: "rbac.authorization.k8s.io"}}
	require.NoError(t, env.admin.Create(ctx, rb))
	t.Cleanup(func() { _ = env.admin.Delete(ctx, rb); _ = env.admin.Delete(ctx, role) })
}

// A clone into another namespace is refused unless the requester may
// create datavolumes/source in the source namespace; allowed, it copies
// the disk on the source's node.
func TestCloneAcrossNamespacesNeedsPermission(t *testing.T) {
	node := storageNode(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, Nodes: []handler.Config{node}})
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "golden-images"}}
	require.NoError(t, crclient.IgnoreAlreadyExists(env.admin.Create(ctx, ns)))
	dir := testImages(t)
	srv := serveImages(t, dir)
	golden := importDV("golden", srv.url+"/disk.qcow2", "64Mi", true)
	golden.Namespace = "golden-images"
	require.NoError(t, env.admin.Create(ctx, golden))
	defer env.admin.Delete(ctx, golden)
	require.Eventually(t, func() bool {
		got := &cdiv1.DataVolume{}
		return env.admin.Get(ctx, types.NamespacedName{Namespace: "golden-images", Name: "golden"}, got) == nil && got.Status.Phase == cdiv1.Succeeded
	}, 2*time.Minute, 200*time.Millisecond, "the golden image was imported")

	grant(t, "default", "dv-creator", "joe", rbacv1.PolicyRule{APIGroups: []string{"cdi.kubevirt.io"}, Resources: []string{"datavolumes"}, Verbs: []string{"*"}})
	cfg := rest.CopyConfig(env.cp.RESTConfig())
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "joe"}
	joe, err := newClient(cfg)
	require.NoError(t, err)
	clone := func() *cdiv1.DataVolume {
		dv := importDV("dv-clone", "", "1Mi", false)
		dv.Spec.Source = &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: "golden-images", Name: "golden"}}
		dv.Spec.Storage.Resources.Requests = nil
		return dv
	}
	err = joe.Create(ctx, clone())
	require.ErrorContains(t, err, "insufficient permissions in clone source namespace: user joe may not create datavolumes/source in namespace golden-images")

	grant(t, "golden-images", "cloner", "joe", rbacv1.PolicyRule{APIGroups: []string{"cdi.kubevirt.io"}, Resources: []string{"datavolumes/source"}, Verbs: []string{"create"}})
	require.Eventually(t, func() bool { return joe.Create(ctx, clone()) == nil }, 10*time.Second, 200*time.Millisecond, "allowed once joe may clone")
	defer deleteDV(t, "dv-clone")
	dv := waitDVPhase(t, "dv-clone", cdiv1.Succeeded, 2*time.Minute)
	require.Equal(t, "Clone Complete", dvCondition(dv, cdiv1.DataVolumeRunning).Message)
	recordHistory(t, "workflows/cdi/testdata/clone_completed.json", cdic.CloneWorkflowID(string(dv.UID)))
	require.Equal(t, referenceDigest(t, filepath.Join(dir, "disk.qcow2"), 64<<20), fileDigest(t, diskOf(t, "dv-clone")),
		"the clone holds the source's disk, sized as the source (the storage form took its size)")
}

// A DataVolume naming a DataSource (sourceRef), as VMs made from common
// templates do, clones the claim the DataSource points at.
func TestDataVolumeFromADataSource(t *testing.T) {
	node := storageNode(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, Nodes: []handler.Config{node}})
	ctx := context.Background()
	dir := testImages(t)
	srv := serveImages(t, dir)
	require.NoError(t, env.admin.Create(ctx, importDV("boot-source", srv.url+"/image-a", "64Mi", true)))
	defer deleteDV(t, "boot-source")
	ds := &cdiv1.DataSource{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "guest"},
		Spec: cdiv1.DataSourceSpec{Source: cdiv1.DataSourceSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: "default", Name: "boot-source"}}}}
	require.NoError(t, env.admin.Create(ctx, ds))
	defer env.admin.Delete(ctx, ds)

	dv := importDV("from-ds", "", "1Mi", false)
	dv.Spec.Source, dv.Spec.Storage.Resources.Requests = nil, nil
	dv.Spec.SourceRef = &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: "guest"}
	require.NoError(t, env.admin.Create(ctx, dv))
	defer deleteDV(t, "from-ds")
	waitDVPhase(t, "from-ds", cdiv1.Succeeded, 2*time.Minute)
	require.Equal(t, fileDigest(t, diskOf(t, "boot-source")), fileDigest(t, diskOf(t, "from-ds")))
	deleteDV(t, "boot-source")
	// Touch it so the controller looks at it again without its source.
	touch := crclient.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"test.virtflow.io/touched":"yes"}}}`))
	require.NoError(t, env.admin.Patch(ctx, getDV(t, "from-ds"), touch))
	require.Never(t, func() bool { return getDV(t, "from-ds").Status.Phase != cdiv1.Succeeded }, 3*time.Second, 200*time.Millisecond,
		"a finished clone stays Succeeded when its source goes away")

	missing := importDV("from-nowhere", "", "1Mi", false)
	missing.Spec.Source = nil
	missing.Spec.SourceRef = &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: "no-such-source"}
	require.ErrorContains(t, env.admin.Create(ctx, missing), "SourceRef DataSource/default/no-such-source not found")
}
