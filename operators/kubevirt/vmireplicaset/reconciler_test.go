package vmireplicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestTheFirstSyncOnlyRecordsTheObservedAPIVersion(t *testing.T) {
	rs := replicaSet(2)
	rs.Annotations = nil
	e := newEnv(t, rs)
	require.NoError(t, e.sync(t))
	got := e.rs(t)
	assert.Equal(t, "v1", got.Annotations["kubevirt.io/latest-observed-api-version"])
	assert.Equal(t, "v1", got.Annotations["kubevirt.io/storage-observed-api-version"])
	assert.Empty(t, e.created, "the update brings the next sync, which scales")
	assert.Empty(t, got.Status.LabelSelector)

	require.NoError(t, e.sync(t))
	assert.Len(t, e.created, 2)
}

func TestScaleUpCreatesVMIsFromTheTemplateOwnedByTheReplicaSet(t *testing.T) {
	e := newEnv(t, replicaSet(3))
	require.NoError(t, e.sync(t))
	require.Len(t, e.created, 3)
	for _, v := range e.created {
		assert.Equal(t, "web", v.GenerateName, "no dash appended, as upstream")
		assert.Equal(t, "ns", v.Namespace)
		assert.Equal(t, map[string]string{"app": "web", "tier": "front"}, v.Labels)
		assert.Equal(t, "kept", v.Annotations["note"], "the whole template metadata carries over")
		assert.Equal(t, "64Mi", v.Spec.Domain.Memory.Guest.String())
		ref := metav1.GetControllerOf(v)
		require.NotNil(t, ref)
		assert.Equal(t, "kubevirt.io/v1", ref.APIVersion)
		assert.Equal(t, "VirtualMachineInstanceReplicaSet", ref.Kind)
		assert.Equal(t, "web", ref.Name)
		assert.EqualValues(t, "rs-uid", ref.UID)
		assert.True(t, *ref.BlockOwnerDeletion)
	}
	assert.Contains(t, e.events(), "Normal SuccessfulCreate Started the virtual machine by creating the new virtual machine instance "+e.created[0].Name)
	got := e.rs(t)
	assert.Equal(t, "app=web", got.Status.LabelSelector)
	assert.Zero(t, got.Status.Replicas, "replicas counts the VMIs seen before this sync created any")
	assert.Empty(t, got.Status.Conditions)
}

func TestTheTemplatesNameOrGenerateNameIsTheBaseOfNewNames(t *testing.T) {
	rs := replicaSet(1)
	rs.Spec.Template.ObjectMeta.GenerateName = "gen-"
	e := newEnv(t, rs)
	require.NoError(t, e.sync(t))
	require.Len(t, e.created, 1)
	assert.Equal(t, "gen-", e.created[0].GenerateName)

	rs = replicaSet(1)
	rs.Spec.Template.ObjectMeta.Name = "named"
	rs.Spec.Template.ObjectMeta.GenerateName = "gen-"
	e = newEnv(t, rs)
	require.NoError(t, e.sync(t))
	assert.Equal(t, "named", e.created[0].GenerateName, "the template's name wins")
}

func TestUnsetReplicasMeansOne(t *testing.T) {
	rs := replicaSet(0)
	rs.Spec.Replicas = nil
	e := newEnv(t, rs)
	require.NoError(t, e.sync(t))
	assert.Len(t, e.created, 1)
}

func TestOneSyncCreatesAtMostABurst(t *testing.T) {
	e := newEnv(t, replicaSet(BurstReplicas+50))
	require.NoError(t, e.sync(t))
	assert.Len(t, e.created, BurstReplicas)
}

func TestScaleDownDeletesUnreadyThenNewestFirst(t *testing.T) {
	e := newEnv(t, replicaSet(2),
		vmi("old-ready", time.Hour, kubevirtv1.Running, true),
		vmi("new-ready", time.Minute, kubevirtv1.Running, true),
		vmi("mid-ready", 30*time.Minute, kubevirtv1.Running, true),
		vmi("pending", 2*time.Hour, kubevirtv1.Pending, false),
	)
	require.NoError(t, e.sync(t))
	assert.ElementsMatch(t, []string{"old-ready", "mid-ready"}, e.vmiNames(t))
	assert.ElementsMatch(t, []string{
		"Normal SuccessfulDelete Stopped the virtual machine by deleting the virtual machine instance pending-uid",
		"Normal SuccessfulDelete Stopped the virtual machine by deleting the virtual machine instance new-ready-uid",
	}, e.events())
	got := e.rs(t)
	assert.EqualValues(t, 4, got.Status.Replicas, "counted before the deletions")
	assert.EqualValues(t, 3, got.Status.ReadyReplicas)
}

func TestFinishedAndTerminatingVMIsAreReplacedAndDeleted(t *testing.T) {
	terminating := vmi("terminating", time.Hour, kubevirtv1.Running, false)
	terminating.Status.Conditions = []kubevirtv1.VirtualMachineInstanceCondition{{
		Type: kubevirtv1.VirtualMachineInstanceReady, Status: corev1.ConditionFalse, Reason: kubevirtv1.PodTerminatingReason}}
	deleting := vmi("deleting", time.Hour, kubevirtv1.Running, true)
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{"kubevirt.io/foregroundDeleteVirtualMachine"}
	e := newEnv(t, replicaSet(2),
		vmi("running", time.Hour, kubevirtv1.Running, true),
		vmi("failed", time.Hour, kubevirtv1.Failed, false),
		vmi("done", time.Hour, kubevirtv1.Succeeded, false),
		terminating, deleting,
	)
	require.NoError(t, e.sync(t))
	assert.Len(t, e.created, 1, "one active VMI of two wanted")
	assert.ElementsMatch(t, []string{"running", "deleting"}, e.vmiNames(t))
	assert.Subset(t, e.events(), []string{
		"Normal SuccessfulDelete Deleted finished virtual machine: failed-uid",
		"Normal SuccessfulDelete Deleted finished virtual machine: done-uid",
		"Normal SuccessfulDelete Deleted finished virtual machine: terminating-uid",
	})
	got := e.rs(t)
	assert.EqualValues(t, 1, got.Status.Replicas)
	assert.EqualValues(t, 1, got.Status.ReadyReplicas)
}

func TestAnUnusableSpecIsLeftAlone(t *testing.T) {
	noSelector := replicaSet(1)
	noSelector.Spec.Selector = nil
	noLabels := replicaSet(1)
	noLabels.Spec.Template.ObjectMeta.Labels = nil
	mismatch := replicaSet(1)
	mismatch.Spec.Selector.MatchLabels = map[string]string{"app": "db"}
	badSelector := replicaSet(1)
	badSelector.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}
	for name, rs := range map[string]*kubevirtv1.VirtualMachineInstanceReplicaSet{
		"no selector": noSelector, "no template labels": noLabels, "mismatch": mismatch, "bad selector": badSelector,
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, rs)
			require.NoError(t, e.sync(t), "retrying would not help")
			assert.Empty(t, e.created)
			assert.Empty(t, e.rs(t).Status.LabelSelector, "no status is written")
		})
	}
}

func TestPausedReplicaSetDoesNotScaleAndSaysSo(t *testing.T) {
	rs := replicaSet(3)
	rs.Spec.Paused = true
	e := newEnv(t, rs, vmi("a", time.Hour, kubevirtv1.Running, true))
	require.NoError(t, e.sync(t))
	assert.Empty(t, e.created)
	got := e.rs(t)
	c := condition(got, kubevirtv1.VirtualMachineInstanceReplicaSetReplicaPaused)
	require.NotNil(t, c)
	assert.Equal(t, corev1.ConditionTrue, c.Status)
	assert.Equal(t, "Paused", c.Reason)
	assert.Equal(t, "Controller got paused", c.Message)
	assert.Equal(t, []string{"Normal SuccessfulPaused Paused"}, e.events())
	assert.EqualValues(t, 1, got.Status.Replicas)

	got.Spec.Paused = false
	require.NoError(t, e.c.Update(t.Context(), got))
	require.NoError(t, e.sync(t))
	assert.Len(t, e.created, 2)
	assert.Nil(t, condition(e.rs(t), kubevirtv1.VirtualMachineInstanceReplicaSetReplicaPaused))
	assert.Contains(t, e.events(), "Normal SuccessfulResumed Resumed")
}

func TestAFailedCreateSetsReplicaFailureUntilASyncSucceeds(t *testing.T) {
	e := newEnv(t, replicaSet(2))
	e.failWith = apierrors.NewForbidden(schema.GroupResource{Group: "kubevirt.io", Resource: "virtualmachineinstances"}, "", assert.AnError)
	err := e.sync(t)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scaling VirtualMachineInstanceReplicaSet ns/web")
	c := condition(e.rs(t), kubevirtv1.VirtualMachineInstanceReplicaSetReplicaFailure)
	require.NotNil(t, c)
	assert.Equal(t, "FailedCreate", c.Reason)
	assert.Equal(t, e.failWith.Error(), c.Message, "the raw API error, as upstream")
	assert.Contains(t, e.events(), "Warning FailedCreate Error creating virtual machine instance: "+e.failWith.Error())

	e.failWith = nil
	require.NoError(t, e.sync(t))
	assert.Nil(t, condition(e.rs(t), kubevirtv1.VirtualMachineInstanceReplicaSetReplicaFailure))
}

func TestAFailedDeleteIsReportedAsFailedDelete(t *testing.T) {
	e := newEnv(t, replicaSet(0), vmi("a", time.Hour, kubevirtv1.Running, true))
	e.failWith = apierrors.NewInternalError(assert.AnError)
	require.Error(t, e.sync(t))
	c := condition(e.rs(t), kubevirtv1.VirtualMachineInstanceReplicaSetReplicaFailure)
	require.NotNil(t, c)
	assert.Equal(t, "FailedDelete", c.Reason)
	assert.Contains(t, e.events(), "Warning FailedDelete Error deleting virtual machine instance a: "+e.failWith.Error())
}

func TestStatusIsNotRewrittenWhenNothingChanged(t *testing.T) {
	e := newEnv(t, replicaSet(1), vmi("a", time.Hour, kubevirtv1.Running, true))
	require.NoError(t, e.sync(t))
	first := e.rs(t)
	assert.EqualValues(t, 1, first.Status.ReadyReplicas)
	require.NoError(t, e.sync(t))
	assert.Equal(t, first.ResourceVersion, e.rs(t).ResourceVersion)
}

func TestADeletedReplicaSetIsNotScaled(t *testing.T) {
	rs := replicaSet(3)
	rs.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	rs.Finalizers = []string{"test/keep"}
	e := newEnv(t, rs)
	require.NoError(t, e.sync(t))
	assert.Empty(t, e.created)
	assert.Equal(t, "app=web", e.rs(t).Status.LabelSelector, "status is still reported")
}

func TestAMissingReplicaSetIsNoError(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, e.sync(t))
}
