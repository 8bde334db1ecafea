package vmireplicaset

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestMatchingOrphansAreAdoptedAndStraysReleased(t *testing.T) {
	stray := vmi("stray", time.Hour, kubevirtv1.Running, true)
	stray.Labels = map[string]string{"app": "other"}
	deletingOrphan := orphan(vmi("deleting-orphan", time.Hour, kubevirtv1.Running, true))
	deletingOrphan.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deletingOrphan.Finalizers = []string{"test/keep"}
	yes := true
	foreign := vmi("foreign", time.Hour, kubevirtv1.Running, true)
	foreign.OwnerReferences = []metav1.OwnerReference{{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine",
		Name: "vm", UID: "vm-uid", Controller: &yes}}
	e := newEnv(t, replicaSet(1), orphan(vmi("orphan", time.Hour, kubevirtv1.Running, true)), stray, deletingOrphan, foreign)
	require.NoError(t, e.sync(t))

	adopted := metav1.GetControllerOf(e.vmi(t, "orphan"))
	require.NotNil(t, adopted)
	assert.Equal(t, metav1.OwnerReference{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachineInstanceReplicaSet",
		Name: "web", UID: "rs-uid", Controller: &yes, BlockOwnerDeletion: &yes}, *adopted)
	assert.Empty(t, e.vmi(t, "stray").OwnerReferences, "its labels no longer match")
	assert.Empty(t, e.vmi(t, "deleting-orphan").OwnerReferences, "a VMI being deleted is not adopted")
	assert.Equal(t, "VirtualMachine", metav1.GetControllerOf(e.vmi(t, "foreign")).Kind, "another controller's VMI is not touched")
	assert.Empty(t, e.created, "the adopted VMI is the one replica")
	assert.EqualValues(t, 1, e.rs(t).Status.Replicas)
}

func TestAReplicaSetBeingDeletedNeitherAdoptsNorReleases(t *testing.T) {
	rs := replicaSet(1)
	rs.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	rs.Finalizers = []string{"test/keep"}
	stray := vmi("stray", time.Hour, kubevirtv1.Running, true)
	stray.Labels = nil
	e := newEnv(t, rs, orphan(vmi("orphan", time.Hour, kubevirtv1.Running, true)), stray)
	require.NoError(t, e.sync(t))
	assert.Empty(t, e.vmi(t, "orphan").OwnerReferences)
	assert.NotEmpty(t, e.vmi(t, "stray").OwnerReferences)
}

func TestAdoptionRechecksTheReplicaSetLive(t *testing.T) {
	e := newEnv(t, replicaSet(1), orphan(vmi("orphan", time.Hour, kubevirtv1.Running, true)))
	// The live copy is a replica set recreated under the same name.
	live := newEnv(t, func() *kubevirtv1.VirtualMachineInstanceReplicaSet {
		rs := replicaSet(1)
		rs.UID = "new-uid"
		return rs
	}())
	e.r.APIReader = readerWithVMIs{Reader: live.c, vmis: e.c}
	err := e.sync(t)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "original ReplicaSet ns/web is gone: got uid new-uid, wanted rs-uid")
	assert.Empty(t, e.vmi(t, "orphan").OwnerReferences)
}

// readerWithVMIs reads replica sets from one client and VMIs from another.
type readerWithVMIs struct {
	client.Reader
	vmis client.Reader
}

func (r readerWithVMIs) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return r.vmis.List(ctx, list, opts...)
}

func TestVMIEventsWakeTheirOwnerOrEveryMatchingReplicaSet(t *testing.T) {
	other := replicaSet(1)
	other.Name, other.UID = "db", "db-uid"
	other.Spec.Selector.MatchLabels = map[string]string{"app": "db"}
	broad := replicaSet(1)
	broad.Name, broad.UID = "all", "all-uid"
	broad.Spec.Selector = &metav1.LabelSelector{}
	e := newEnv(t, replicaSet(1), other, broad)
	ctx := context.Background()
	key := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
	}

	assert.Equal(t, []reconcile.Request{key("web")}, e.r.replicaSetsFor(ctx, vmi("owned", 0, kubevirtv1.Running, true)))
	assert.ElementsMatch(t, []reconcile.Request{key("web"), key("all")},
		e.r.replicaSetsFor(ctx, orphan(vmi("orphan", 0, kubevirtv1.Running, true))))
	yes := true
	ofVM := vmi("of-vm", 0, kubevirtv1.Running, true)
	ofVM.OwnerReferences = []metav1.OwnerReference{{Kind: "VirtualMachine", Name: "vm", Controller: &yes}}
	assert.Empty(t, e.r.replicaSetsFor(ctx, ofVM))
}

func TestDeletionOrder(t *testing.T) {
	vmis := []*kubevirtv1.VirtualMachineInstance{
		vmi("ready-old", 3*time.Hour, kubevirtv1.Running, true),
		vmi("running-unready", time.Hour, kubevirtv1.Running, false),
		vmi("scheduled", time.Hour, kubevirtv1.Scheduled, false),
		vmi("ready-new", time.Hour, kubevirtv1.Running, true),
		vmi("pending-b", time.Hour, kubevirtv1.Pending, false),
		vmi("pending-a", time.Hour, kubevirtv1.Pending, false),
		vmi("unset-old", 5*time.Hour, "", false),
	}
	var names []string
	for _, v := range deletionOrder(vmis) {
		names = append(names, v.Name)
	}
	assert.Equal(t, []string{"pending-a", "pending-b", "unset-old", "scheduled", "running-unready", "ready-new", "ready-old"}, names)
	assert.Equal(t, "ready-old", vmis[0].Name, "the input is not reordered")
}
