package modifydataobject

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// errTimedOut is upstream's message when a wait runs out of time.
var errTimedOut = errors.New("timed out waiting for the condition")

// deleteWaitTimeout bounds the wait for a replaced object to go.
const deleteWaitTimeout = time.Hour

// unusualRestarts is how many importer restarts upstream takes for a
// failed import while the DataVolume still says it imports.
const unusualRestarts = 3

// poll calls check now and then every pollInterval until it is done or
// fails, ctx ends, or timeout (when not 0) passes; it reports progress as
// detail on every look.
func poll(ctx context.Context, env stepenv.Env, detail string, timeout time.Duration, check func() (bool, error)) error {
	var deadline <-chan time.Time
	if timeout != 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		deadline = timer.C
	}
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		env.Alive(detail)
		done, err := check()
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return errTimedOut
		case <-ticker.C:
		}
	}
}

// waitForSuccess waits until CDI finished obj: a DataVolume succeeded
// (or was already collected, leaving its claim), a DataSource is ready.
func waitForSuccess(ctx context.Context, env stepenv.Env, obj *unstructured.Unstructured, timeout time.Duration) error {
	key := crclient.ObjectKeyFromObject(obj)
	detail := fmt.Sprintf("waiting for %s %s", obj.GetKind(), key)
	if obj.GetKind() == kindDataSource {
		return poll(ctx, env, detail, timeout, func() (bool, error) { return dataSourceReady(ctx, env, key) })
	}
	return poll(ctx, env, detail, timeout, func() (bool, error) { return dataVolumeSucceeded(ctx, env, key) })
}

func dataSourceReady(ctx context.Context, env stepenv.Env, key crclient.ObjectKey) (bool, error) {
	ds := &cdiv1beta1.DataSource{}
	if err := env.Client.Get(ctx, key, ds); err != nil {
		return false, err
	}
	for _, c := range ds.Status.Conditions {
		if c.Type == cdiv1beta1.DataSourceReady {
			return c.Status == corev1.ConditionTrue, nil
		}
	}
	return false, nil
}

func dataVolumeSucceeded(ctx context.Context, env stepenv.Env, key crclient.ObjectKey) (bool, error) {
	dv := &cdiv1beta1.DataVolume{}
	err := env.Client.Get(ctx, key, dv)
	if apierrors.IsNotFound(err) {
		// CDI may collect a finished DataVolume; its claim stays.
		if err := env.Client.Get(ctx, key, &corev1.PersistentVolumeClaim{}); err != nil {
			return false, err
		}
		return true, nil
	}
	if err != nil {
		return false, err
	}
	bound, running := dataVolumeCondition(dv, cdiv1beta1.DataVolumeBound), dataVolumeCondition(dv, cdiv1beta1.DataVolumeRunning)
	switch {
	case dv.Status.Phase == cdiv1beta1.Succeeded && bound.Status == corev1.ConditionTrue:
		return true, nil
	case dv.Status.Phase == cdiv1beta1.ImportInProgress && dv.Status.RestartCount > unusualRestarts &&
		bound.Status == corev1.ConditionTrue && running.Status == corev1.ConditionFalse && running.Reason == "Error":
		return false, fmt.Errorf("Import of DV failed: %v", dv)
	case dv.Status.Phase == cdiv1beta1.Failed:
		return false, fmt.Errorf("DV is in phase failed: %v", dv)
	}
	return false, nil
}

// dataVolumeCondition is dv's condition of type t, zero when it has none.
func dataVolumeCondition(dv *cdiv1beta1.DataVolume, t cdiv1beta1.DataVolumeConditionType) cdiv1beta1.DataVolumeCondition {
	for _, c := range dv.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return cdiv1beta1.DataVolumeCondition{}
}

// waitGone waits until obj (whose kind is set) no longer exists.
func waitGone(ctx context.Context, env stepenv.Env, obj crclient.Object) error {
	key := crclient.ObjectKeyFromObject(obj)
	env.Logf("waiting until %s is deleted", key)
	return poll(ctx, env, fmt.Sprintf("waiting until %s is deleted", key), deleteWaitTimeout, func() (bool, error) {
		err := env.Client.Get(ctx, key, obj)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}
