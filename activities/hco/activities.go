package hco

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/activities/kube"
	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// Activities installs HyperConverged components through the Kubernetes API.
type Activities struct {
	// Client talks to the kube-apiserver; it must know every component kind.
	Client client.Client
	// PollInterval is how often WaitComponentAvailable re-reads status.
	PollInterval time.Duration
}

// PlanComponents returns the component CRs the HyperConverged should own, in
// creation order.
func (a *Activities) PlanComponents(ctx context.Context, ref HyperConvergedRef) ([]ComponentRef, error) {
	hc, err := a.getHyperConverged(ctx, ref)
	if err != nil {
		return nil, err
	}
	var plan []ComponentRef
	for _, obj := range DesiredComponents(hc) {
		plan = append(plan, RefOf(obj))
	}
	return plan, nil
}

// EnsureComponent creates the component CR or brings the fields the
// HyperConverged manages back to their desired values. Calling it twice
// leaves one object.
func (a *Activities) EnsureComponent(ctx context.Context, in EnsureComponentInput) error {
	hc, err := a.getHyperConverged(ctx, in.HyperConverged)
	if err != nil {
		return err
	}
	for _, obj := range DesiredComponents(hc) {
		if RefOf(obj) == in.Component {
			_, err := Apply(ctx, a.Client, obj)
			return err
		}
	}
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("%s %s is no longer part of HyperConverged %s/%s", in.Component.Kind, in.Component.Name, hc.Namespace, hc.Name),
		ErrHyperConvergedGone, nil)
}

// WaitComponentAvailable polls the component CR until its operator reports
// Available=True, heartbeating the last status seen.
func (a *Activities) WaitComponentAvailable(ctx context.Context, ref ComponentRef) (ComponentStatus, error) {
	interval := a.PollInterval
	if interval == 0 {
		interval = time.Second
	}
	for {
		st, err := ReadComponentStatus(ctx, a.Client, ref)
		if err != nil && !apierrors.IsNotFound(err) {
			return st, err
		}
		if st.Available {
			return st, nil
		}
		activity.RecordHeartbeat(ctx, st)
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("%s %s not available (%s): %w", ref.Kind, ref.Name, st.Message, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// DeleteComponents removes the component CRs; already-gone ones are fine.
func (a *Activities) DeleteComponents(ctx context.Context, refs []ComponentRef) error {
	for _, ref := range refs {
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind))
		obj.SetNamespace(ref.Namespace)
		obj.SetName(ref.Name)
		if err := a.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s %s: %w", ref.Kind, ref.Name, err)
		}
	}
	return nil
}

func (a *Activities) getHyperConverged(ctx context.Context, ref HyperConvergedRef) (*hcov1beta1.HyperConverged, error) {
	hc := &hcov1beta1.HyperConverged{}
	err := a.Client.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, hc)
	if apierrors.IsNotFound(err) || (err == nil && string(hc.UID) != ref.UID) {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("HyperConverged %s/%s (uid %s) no longer exists", ref.Namespace, ref.Name, ref.UID), ErrHyperConvergedGone, err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading HyperConverged %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if hc.DeletionTimestamp != nil {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("HyperConverged %s/%s is being deleted", ref.Namespace, ref.Name), ErrHyperConvergedGone, nil)
	}
	return hc, nil
}

// ReadComponentStatus reads the Available condition of a component CR.
func ReadComponentStatus(ctx context.Context, c client.Client, ref ComponentRef) (ComponentStatus, error) {
	st := ComponentStatus{Component: ref, Message: "not created yet"}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind))
	if err := c.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, obj); err != nil {
		return st, err
	}
	st.Version = observedVersion(obj)
	cond, ok := kube.FindCondition(kube.Conditions(obj), "Available")
	if !ok {
		st.Message = "no Available condition reported yet"
		return st, nil
	}
	st.Available, st.Reason, st.Message = cond.Status == "True", cond.Reason, cond.Message
	return st, nil
}

func observedVersion(obj *unstructured.Unstructured) string {
	for _, path := range [][]string{{"status", "observedKubeVirtVersion"}, {"status", "observedVersion"}} {
		if v, ok, _ := unstructured.NestedString(obj.Object, path...); ok && v != "" {
			return v
		}
	}
	return ""
}
