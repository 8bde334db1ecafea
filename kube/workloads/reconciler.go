// Package workloads is the reconciler shape shared by the component
// operators (virt-operator, cdi-operator, network addons, ssp, hostpath
// provisioner): deploy the components a CR asks for, probe their health, and
// report truthful Available/Progressing/Degraded conditions on the CR.
package workloads

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Deployer runs a CR's components: as Deployments and DaemonSets
// (Workloads), or as health-only placeholders for components that are not
// pods yet.
type Deployer interface {
	// Deploy starts the component of the CR owner if it is not running.
	Deploy(ctx context.Context, owner client.Object, name string) error
	// Undeploy stops the component.
	Undeploy(ctx context.Context, owner client.Object, name string) error
	// Probe returns nil only when the component is ready.
	Probe(ctx context.Context, owner client.Object, name string) error
	// Readiness says what a passing probe shows, in the CR's conditions,
	// so a placeholder is never taken for the component itself.
	Readiness() string
}

// Kind describes one component operator.
type Kind struct {
	// GVK is the CR kind the operator owns.
	GVK schema.GroupVersionKind
	// Components are deployed for every CR of the kind.
	Components []string
	// NotBuilt are upstream's components of the kind that virtflow does not
	// have yet: never deployed; one the CR asks for is named in its
	// conditions and keeps it from being Available.
	NotBuilt []string
	// Wanted, when set, names the components of Components and NotBuilt
	// that the CR's spec asks for, as upstream's operators deploy only
	// those; the others are removed once the spec changes. Every one of
	// Components, and none of NotBuilt, when nil.
	Wanted func(owner *unstructured.Unstructured) []string
	// Finalizer blocks deletion until the components are removed.
	Finalizer string
	// Style writes the kind's status shape.
	Style StatusStyle
	// Version is reported as observed/target/operator version.
	Version string
	// NoStatusSubresource is set for kinds whose CRD has none (CDI), whose
	// status is then written with the object.
	NoStatusSubresource bool
	// Manifests are objects the operator installs with its components
	// (e.g. the common instancetypes) and removes with them.
	Manifests func() []client.Object
}

// Reconciler deploys a kind's components and reports their health.
type Reconciler struct {
	Client   client.Client
	Deployer Deployer
	Kind     Kind
	Recorder record.EventRecorder
	// Resync re-probes healthy components this often.
	Resync time.Duration
}

// Reconcile follows the model: get, deletion, finalizer, act, status once.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.Kind.GVK)
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if obj.GetDeletionTimestamp() != nil {
		return ctrl.Result{}, r.finalize(ctx, obj)
	}
	if controllerutil.AddFinalizer(obj, r.Kind.Finalizer) {
		if err := r.Client.Update(ctx, obj); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer to %s %s: %w", r.Kind.GVK.Kind, obj.GetName(), err)
		}
	}
	health := r.deployAndProbe(ctx, obj)
	// A manifest that cannot be installed degrades the CR with its reason
	// instead of leaving its status silent.
	if err := r.applyManifests(ctx, obj); err != nil {
		health.failed = append(health.failed, err.Error())
	}
	if err := r.writeStatus(ctx, obj, health); err != nil {
		return ctrl.Result{}, err
	}
	if !health.allReady() {
		return ctrl.Result{RequeueAfter: 2 * time.Second}, nil
	}
	return ctrl.Result{RequeueAfter: r.resync()}, nil
}

func (r *Reconciler) resync() time.Duration {
	if r.Resync == 0 {
		return 15 * time.Second
	}
	return r.Resync
}

func (r *Reconciler) deployAndProbe(ctx context.Context, owner *unstructured.Unstructured) health {
	h := health{readiness: r.Deployer.Readiness()}
	wanted := r.wanted(owner)
	for _, name := range r.Kind.Components {
		if !wanted[name] {
			if err := r.removeUnwanted(ctx, owner, name); err != nil {
				h.failed = append(h.failed, fmt.Sprintf("%s: %v", name, err))
			}
			continue
		}
		h.total++
		if err := r.Deployer.Deploy(ctx, owner, name); err != nil {
			h.failed = append(h.failed, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		if err := r.Deployer.Probe(ctx, owner, name); err != nil {
			h.notReady = append(h.notReady, err.Error())
			continue
		}
		h.ready++
	}
	for _, name := range r.Kind.NotBuilt {
		if wanted[name] {
			h.notBuilt = append(h.notBuilt, name)
		}
	}
	return h
}

// wanted is the set of components the CR asks for.
func (r *Reconciler) wanted(owner *unstructured.Unstructured) map[string]bool {
	names := r.Kind.Components
	if r.Kind.Wanted != nil {
		names = r.Kind.Wanted(owner)
	}
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	return set
}

// removeUnwanted removes a component the spec no longer asks for, once
// per spec change rather than on every re-probe.
func (r *Reconciler) removeUnwanted(ctx context.Context, owner *unstructured.Unstructured, name string) error {
	observed, _, _ := unstructured.NestedInt64(owner.Object, "status", "observedGeneration")
	if observed == owner.GetGeneration() {
		return nil
	}
	return r.Deployer.Undeploy(ctx, owner, name)
}

func (r *Reconciler) finalize(ctx context.Context, obj *unstructured.Unstructured) error {
	if !controllerutil.ContainsFinalizer(obj, r.Kind.Finalizer) {
		return nil
	}
	for _, name := range r.Kind.Components {
		if err := r.Deployer.Undeploy(ctx, obj, name); err != nil {
			return fmt.Errorf("removing component %s of %s: %w", name, obj.GetName(), err)
		}
	}
	if r.Kind.Manifests != nil {
		for _, m := range r.Kind.Manifests() {
			if err := r.Client.Delete(ctx, m); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("removing %s %s: %w", m.GetObjectKind().GroupVersionKind().Kind, m.GetName(), err)
			}
		}
	}
	controllerutil.RemoveFinalizer(obj, r.Kind.Finalizer)
	if err := r.Client.Update(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing finalizer from %s %s: %w", r.Kind.GVK.Kind, obj.GetName(), err)
	}
	return nil
}

// SetupWithManager watches the kind, and the workloads it owns when its
// deployer runs components as pods, so a pod turning Ready shows at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.Kind.GVK)
	b := ctrl.NewControllerManagedBy(mgr).Named(r.Kind.GVK.Kind).For(obj)
	if o, ok := r.Deployer.(interface{ Owned() []client.Object }); ok {
		for _, kind := range o.Owned() {
			b = b.Owns(kind)
		}
	}
	return b.Complete(r)
}

// applyManifests server-side applies the kind's manifests while the CR is
// being deployed or after it changed, not on every periodic re-probe.
func (r *Reconciler) applyManifests(ctx context.Context, obj *unstructured.Unstructured) error {
	if r.Kind.Manifests == nil {
		return nil
	}
	phase, _, _ := unstructured.NestedString(obj.Object, "status", "phase")
	observed, _, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
	if phase == "Deployed" && observed == obj.GetGeneration() {
		return nil
	}
	for _, m := range r.Kind.Manifests() {
		if err := r.Client.Patch(ctx, m, client.Apply, client.FieldOwner(strings.ToLower(r.Kind.GVK.Kind)+"-operator"), client.ForceOwnership); err != nil {
			return fmt.Errorf("installing %s %s: %w", m.GetObjectKind().GroupVersionKind().Kind, m.GetName(), err)
		}
	}
	return nil
}
