package hyperconverged

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	nacv1 "github.com/virtflow/virtflow/api/networkaddonsoperator/v1"
	"github.com/virtflow/virtflow/operands"
)

const (
	// dryRunTimeout bounds the dry-run updates of all components together.
	dryRunTimeout = 3 * time.Second
	// dryRunAttempts is how often a dry-run update meeting a conflict is
	// tried with a fresh copy.
	dryRunAttempts = 3
)

// dryRunUpdates tries the HyperConverged's settings on the KubeVirt, CDI
// and NetworkAddonsConfig that exist, so their schemas and webhooks judge
// the change before the HyperConverged is stored. A component missing is
// an error, as it is for HCO. (HCO adds SSP on OpenShift only.)
func dryRunUpdates(ctx context.Context, c client.Client, hc *hcov1beta1.HyperConverged) error {
	if hc.DeletionTimestamp != nil {
		return nil
	}
	current := []client.Object{
		&kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: hc.Namespace, Name: operands.KubeVirtName}},
		&cdiv1beta1.CDI{ObjectMeta: metav1.ObjectMeta{Name: operands.CDIName}},
		&nacv1.NetworkAddonsConfig{ObjectMeta: metav1.ObjectMeta{Name: operands.NetworkAddonsName}},
	}
	for _, obj := range current {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, dryRunTimeout)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	for _, obj := range current {
		g.Go(func() error { return dryRunUpdate(gctx, c, hc, obj) })
	}
	return g.Wait()
}

func dryRunUpdate(ctx context.Context, c client.Client, hc *hcov1beta1.HyperConverged, obj client.Object) error {
	for attempt := range dryRunAttempts {
		if attempt > 0 {
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				return err
			}
		}
		if err := setDerivedSpec(hc, obj); err != nil {
			return err
		}
		if err := c.Update(ctx, obj, client.DryRunAll); !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("failed to dry-run update %v after %d retries due to persistent conflicts", obj.GetObjectKind(), dryRunAttempts)
}

// setDerivedSpec replaces the component's spec with the one derived.
func setDerivedSpec(hc *hcov1beta1.HyperConverged, obj client.Object) error {
	switch cur := obj.(type) {
	case *kubevirtv1.KubeVirt:
		want, err := deriveKubeVirt(hc)
		if err != nil {
			return err
		}
		want.Spec.DeepCopyInto(&cur.Spec)
	case *cdiv1beta1.CDI:
		want, err := deriveCDI(hc)
		if err != nil {
			return err
		}
		want.Spec.DeepCopyInto(&cur.Spec)
	case *nacv1.NetworkAddonsConfig:
		want, err := deriveNetworkAddons(hc)
		if err != nil {
			return err
		}
		want.Spec.DeepCopyInto(&cur.Spec)
	}
	return nil
}

// dryRunDeletes tries deleting the KubeVirt and CDI the HyperConverged
// made: with workloads present, their uninstall strategy refuses, and
// that refusal is what keeps the HyperConverged.
func dryRunDeletes(ctx context.Context, c client.Client, hc *hcov1beta1.HyperConverged) error {
	for _, obj := range []client.Object{
		&kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: hc.Namespace, Name: operands.KubeVirtName}},
		&cdiv1beta1.CDI{ObjectMeta: metav1.ObjectMeta{Name: operands.CDIName}},
	} {
		if err := dryRunDelete(ctx, c, hc.Name, obj); err != nil {
			return err
		}
	}
	return nil
}

func dryRunDelete(ctx context.Context, c client.Client, hcName string, obj client.Object) error {
	err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	var discoveryErr *discovery.ErrGroupDiscoveryFailed
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) || errors.As(err, &discoveryErr) {
		return nil
	}
	if err != nil {
		return err
	}
	// A component someone else deployed is not the HyperConverged's to remove.
	if obj.GetLabels()[operands.LabelApp] != hcName {
		return nil
	}
	if err := c.Delete(ctx, obj, client.DryRunAll); !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}
