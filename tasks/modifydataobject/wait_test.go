package modifydataobject

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

var diskKey = types.NamespacedName{Namespace: "active", Name: "disk"}

// later changes the DataVolume disk once the task has looked at it a few
// times.
func (te *testEnv) later(t *testing.T, change func(*cdiv1beta1.DataVolume)) {
	go func() {
		for range 100 {
			time.Sleep(pollInterval)
			if len(te.alive.Details()) >= 3 {
				break
			}
		}
		dv := &cdiv1beta1.DataVolume{}
		if err := te.client.Get(context.Background(), diskKey, dv); err != nil {
			t.Errorf("getting the DataVolume: %v", err)
			return
		}
		change(dv)
		if err := te.client.Update(context.Background(), dv); err != nil {
			t.Errorf("updating the DataVolume: %v", err)
		}
	}()
}

func dvStatus(phase cdiv1beta1.DataVolumePhase, restarts int32, conds ...cdiv1beta1.DataVolumeCondition) func(*cdiv1beta1.DataVolume) {
	return func(dv *cdiv1beta1.DataVolume) {
		dv.Status = cdiv1beta1.DataVolumeStatus{Phase: phase, RestartCount: restarts, Conditions: conds}
	}
}

func cond(t cdiv1beta1.DataVolumeConditionType, s corev1.ConditionStatus, reason string) cdiv1beta1.DataVolumeCondition {
	return cdiv1beta1.DataVolumeCondition{Type: t, Status: s, Reason: reason}
}

var bound = cond(cdiv1beta1.DataVolumeBound, corev1.ConditionTrue, "Bound")

func waitParams() map[string]string {
	return map[string]string{ParamManifest: dvManifest, ParamWaitForSuccess: " true "}
}

func TestWaitForSuccessUntilTheDataVolumeSucceeded(t *testing.T) {
	te := newTestEnv(t)
	te.later(t, dvStatus(cdiv1beta1.Succeeded, 0, bound))
	require.NoError(t, te.run(waitParams()))
	assert.Equal(t, map[string]string{ResultName: "disk", ResultNamespace: "active"}, te.results())
	assert.GreaterOrEqual(t, len(te.alive.Details()), 3)
	assert.Equal(t, "waiting for DataVolume active/disk", te.alive.Details()[0])
}

// Succeeded needs the claim bound too.
func TestWaitForSuccessNeedsTheClaimBound(t *testing.T) {
	te := newTestEnv(t)
	te.later(t, dvStatus(cdiv1beta1.Succeeded, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := Task.Run(ctx, te.Env, stepenv.Params{Strings: waitParams()})
	require.Error(t, err)
	assert.Equal(t, "Failed to wait for success of data object: context deadline exceeded", err.Error())
}

func TestWaitForSuccessFailsOnAFailedDataVolume(t *testing.T) {
	te := newTestEnv(t)
	te.later(t, dvStatus(cdiv1beta1.Failed, 0))
	err := te.run(waitParams())
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "Failed to wait for success of data object: DV is in phase failed: &{"), err.Error())
	assert.Empty(t, te.results())
}

// An import whose importer keeps failing is failed though the phase says
// it still imports.
func TestWaitForSuccessFailsOnAnImportThatKeepsRestarting(t *testing.T) {
	running := cond(cdiv1beta1.DataVolumeRunning, corev1.ConditionFalse, "Error")
	te := newTestEnv(t)
	te.later(t, dvStatus(cdiv1beta1.ImportInProgress, 4, bound, running))
	err := te.run(waitParams())
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "Failed to wait for success of data object: Import of DV failed: &{"), err.Error())
}

// Three restarts are still usual.
func TestWaitForSuccessBearsThreeRestarts(t *testing.T) {
	running := cond(cdiv1beta1.DataVolumeRunning, corev1.ConditionFalse, "Error")
	te := newTestEnv(t)
	te.later(t, dvStatus(cdiv1beta1.ImportInProgress, 3, bound, running))
	params := waitParams()
	params[ParamTimeout] = "150ms"
	err := te.run(params)
	require.Error(t, err)
	assert.Equal(t, "Failed to wait for success of data object: timed out waiting for the condition", err.Error())
}

// A DataVolume CDI collected after success leaves its claim: success.
func TestWaitForSuccessTakesALeftClaimForSuccess(t *testing.T) {
	te := newTestEnv(t)
	go func() {
		time.Sleep(3 * pollInterval)
		ctx := context.Background()
		dv := &cdiv1beta1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "disk"}}
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: dv.ObjectMeta}
		if err := te.client.Create(ctx, pvc); err != nil {
			t.Errorf("creating the claim: %v", err)
		}
		if err := te.client.Delete(ctx, dv); err != nil {
			t.Errorf("deleting the DataVolume: %v", err)
		}
	}()
	require.NoError(t, te.run(waitParams()))
}

func TestWaitForSuccessFailsWhenDataVolumeAndClaimAreGone(t *testing.T) {
	te := newTestEnv(t)
	go func() {
		time.Sleep(3 * pollInterval)
		dv := &cdiv1beta1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "disk"}}
		if err := te.client.Delete(context.Background(), dv); err != nil {
			t.Errorf("deleting the DataVolume: %v", err)
		}
	}()
	err := te.run(waitParams())
	require.Error(t, err)
	assert.Equal(t, `Failed to wait for success of data object: persistentvolumeclaims "disk" not found`, err.Error())
}

func TestWaitForSuccessTimesOut(t *testing.T) {
	te := newTestEnv(t)
	params := waitParams()
	params[ParamTimeout] = "30ms"
	start := time.Now()
	err := te.run(params)
	require.Error(t, err)
	assert.Equal(t, "Failed to wait for success of data object: timed out waiting for the condition", err.Error())
	assert.Less(t, time.Since(start), 2*time.Second)
}

// An empty timeout waits for ever (here: until the context ends).
func TestWaitForSuccessWithoutTimeoutEndsWithTheContext(t *testing.T) {
	te := newTestEnv(t)
	params := waitParams()
	params[ParamTimeout] = ""
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	err := Task.Run(ctx, te.Env, stepenv.Params{Strings: params})
	require.Error(t, err)
	assert.Equal(t, "Failed to wait for success of data object: context canceled", err.Error())
}

func TestWaitForSuccessOfADataSourceUntilReady(t *testing.T) {
	te := newTestEnv(t)
	go func() {
		time.Sleep(3 * pollInterval)
		ds := &cdiv1beta1.DataSource{}
		key := types.NamespacedName{Namespace: "images", Name: "src"}
		if err := te.client.Get(context.Background(), key, ds); err != nil {
			t.Errorf("getting the DataSource: %v", err)
			return
		}
		ds.Status.Conditions = []cdiv1beta1.DataSourceCondition{{Type: cdiv1beta1.DataSourceReady, ConditionState: cdiv1beta1.ConditionState{Status: corev1.ConditionTrue}}}
		if err := te.client.Update(context.Background(), ds); err != nil {
			t.Errorf("updating the DataSource: %v", err)
		}
	}()
	require.NoError(t, te.run(map[string]string{ParamManifest: dsManifest, ParamWaitForSuccess: "true"}))
	assert.Equal(t, "waiting for DataSource images/src", te.alive.Details()[0])
}

func TestNoWaitWithoutWaitForSuccess(t *testing.T) {
	te := newTestEnv(t)
	require.NoError(t, te.run(map[string]string{ParamManifest: dvManifest, ParamWaitForSuccess: "True"}))
	assert.Empty(t, te.alive.Details(), "only \"true\" waits, as upstream")
}
