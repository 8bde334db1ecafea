//go:build integration

package integration

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	cdic "github.com/virtflow/virtflow/contracts/cdi"
)

// grant binds user to a role of rules in ns.
func grant(t *testing.T, c crclient.Client, ns, name, user string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
	require.NoError(t, c.Create(ctx, role))
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: user, APIGroup: "rbac.authorization.k8s.io"}},
		RoleRef:  rbacv1.RoleRef{Kind: "Role", Name: name, APIGroup: "rbac.authorization.k8s.io"}}
	require.NoError(t, c.Create(ctx, rb))
	t.Cleanup(func() { _ = c.Delete(ctx, rb); _ = c.Delete(ctx, role) })
}

// A clone into another namespace is refused unless the requester may
// create datavolumes/source in the source namespace (and, on the node, the
// target namespace's default ServiceAccount); allowed, it copies the disk
// on the source's node.
func TestCloneAcrossNamespacesNeedsPermission(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	ctx := context.Background()
	golden := s.importDV("golden", "", "64Mi", true)
	golden.Namespace = n.namespaceNamed(t, s.ns+"-golden")
	dir := testImages(t)
	srv := serveImages(t, dir)
	golden.Spec.Source.HTTP.URL = srv.url + "/disk.qcow2"
	require.NoError(t, s.c.Create(ctx, golden))
	defer s.c.Delete(ctx, golden)
	require.Eventually(t, func() bool {
		got := &cdiv1.DataVolume{}
		return s.c.Get(ctx, crclient.ObjectKeyFromObject(golden), got) == nil && got.Status.Phase == cdiv1.Succeeded
	}, 2*time.Minute, 200*time.Millisecond, "the golden image was imported")

	grant(t, s.c, s.ns, "dv-creator", "joe", rbacv1.PolicyRule{APIGroups: []string{"cdi.kubevirt.io"}, Resources: []string{"datavolumes"}, Verbs: []string{"*"}})
	cfg := rest.CopyConfig(n.cfg)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "joe"}
	joe, err := newClient(cfg)
	require.NoError(t, err)
	clone := func() *cdiv1.DataVolume {
		dv := s.importDV("dv-clone", "", "1Mi", false)
		dv.Spec.Source = &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: golden.Namespace, Name: "golden"}}
		dv.Spec.Storage.Resources.Requests = nil
		return dv
	}
	err = joe.Create(ctx, clone())
	require.ErrorContains(t, err, "User joe has insufficient permissions in clone source namespace "+golden.Namespace)

	cloneSource := rbacv1.PolicyRule{APIGroups: []string{"cdi.kubevirt.io"}, Resources: []string{"datavolumes/source"}, Verbs: []string{"create"}}
	// The node checks the clone again for the target namespace's default
	// ServiceAccount, as CDI checks a DataImportCron's.
	grant(t, s.c, golden.Namespace, "namespace-cloner", "system:serviceaccount:"+s.ns+":default", cloneSource)
	grant(t, s.c, golden.Namespace, "cloner", "joe", cloneSource)
	require.Eventually(t, func() bool { return joe.Create(ctx, clone()) == nil }, 10*time.Second, 200*time.Millisecond, "allowed once joe may clone")
	defer s.deleteDV("dv-clone")
	dv := s.waitDVPhase("dv-clone", cdiv1.Succeeded, 2*time.Minute)
	require.Equal(t, "Clone Complete", dvCondition(dv, cdiv1.DataVolumeRunning).Message)
	recordHistory(t, n.tc, "workflows/cdi/testdata/clone_completed.json", cdic.CloneWorkflowID(string(dv.UID)))
	require.Equal(t, referenceDigest(t, filepath.Join(dir, "disk.qcow2"), 64<<20), fileDigest(t, s.diskOf("dv-clone")),
		"the clone holds the source's disk, sized as the source (the storage form took its size)")
}

// A DataVolume naming a DataSource (sourceRef), as VMs made from common
// templates do, clones the claim the DataSource points at.
func TestDataVolumeFromADataSource(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	ctx := context.Background()
	dir := testImages(t)
	srv := serveImages(t, dir)
	require.NoError(t, s.c.Create(ctx, s.importDV("boot-source", srv.url+"/image-a", "64Mi", true)))
	defer s.deleteDV("boot-source")
	ds := &cdiv1.DataSource{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "guest"},
		Spec: cdiv1.DataSourceSpec{Source: cdiv1.DataSourceSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: s.ns, Name: "boot-source"}}}}
	require.NoError(t, s.c.Create(ctx, ds))
	defer s.c.Delete(ctx, ds)

	dv := s.importDV("from-ds", "", "1Mi", false)
	dv.Spec.Source, dv.Spec.Storage.Resources.Requests = nil, nil
	dv.Spec.SourceRef = &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: "guest"}
	require.NoError(t, s.c.Create(ctx, dv))
	defer s.deleteDV("from-ds")
	s.waitDVPhase("from-ds", cdiv1.Succeeded, 2*time.Minute)
	require.Equal(t, fileDigest(t, s.diskOf("boot-source")), fileDigest(t, s.diskOf("from-ds")))
	s.deleteDV("boot-source")
	// Touch it so the controller looks at it again without its source.
	touch := crclient.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"test.virtflow.io/touched":"yes"}}}`))
	require.NoError(t, s.c.Patch(ctx, s.getDV("from-ds"), touch))
	require.Never(t, func() bool { return s.getDV("from-ds").Status.Phase != cdiv1.Succeeded }, 3*time.Second, 200*time.Millisecond,
		"a finished clone stays Succeeded when its source goes away")

	missing := s.importDV("from-nowhere", "", "1Mi", false)
	missing.Spec.Source = nil
	missing.Spec.SourceRef = &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: "no-such-source"}
	require.ErrorContains(t, s.c.Create(ctx, missing), `datasources.cdi.kubevirt.io "no-such-source" not found`)
}
