package datavolume

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// BinderLabel marks the pod a DataVolume creates so the scheduler picks a
// node for a WaitForFirstConsumer claim: CDI's importer pod plays this part
// upstream. Node agents leave such pods alone; the DataVolume removes its
// binder once the claim is bound.
const BinderLabel = "cdi.kubevirt.io/binder-for"

// waitsForConsumer tells whether the claim's class binds on first consumer
// and nobody asked for immediate binding: then the DataVolume waits for the
// pod that will use it (a VM's launcher) to be scheduled.
func (r *Reconciler) waitsForConsumer(ctx context.Context, dv *cdiv1.DataVolume, pvc *corev1.PersistentVolumeClaim) (wffc bool, immediate bool, err error) {
	if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName == "" {
		return false, false, nil
	}
	sc := &storagev1.StorageClass{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: *pvc.Spec.StorageClassName}, sc); err != nil {
		return false, false, client.IgnoreNotFound(err)
	}
	wffc = sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
	_, immediate = dv.Annotations[AnnImmediateBinding]
	return wffc, immediate, nil
}

func binderName(dv *cdiv1.DataVolume) string { return "cdi-binder-" + dv.Name }

// ensureBinder creates the DataVolume's binder pod for its claim.
//
// A clone's binder is held to its source's node (affinity), where the
// copy can stay local.
func (r *Reconciler) ensureBinder(ctx context.Context, dv *cdiv1.DataVolume, affinity *corev1.Affinity) error {
	if err := EnsureBinder(ctx, r.Client, dv, binderName(dv), dv.Name, affinity); err != nil {
		return fmt.Errorf("DataVolume %s/%s: %w", dv.Namespace, dv.Name, err)
	}
	return nil
}

// EnsureBinder creates a pod named name, owned by owner, that uses claim,
// so the real scheduler selects a node for it (honouring
// WaitForFirstConsumer) and the provisioner on that node binds it.
func EnsureBinder(ctx context.Context, c client.Client, owner client.Object, name, claim string, affinity *corev1.Affinity) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: owner.GetNamespace(),
			Labels: map[string]string{BinderLabel: string(owner.GetUID()), "app": "containerized-data-importer"},
		},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, Affinity: affinity,
			Containers: []corev1.Container{{
				Name: "binder", Image: "virtflow/binder",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("1m"), corev1.ResourceMemory: resource.MustParse("1Mi"),
				}},
				VolumeMounts: []corev1.VolumeMount{{Name: "target", MountPath: "/data"}},
			}},
			Volumes: []corev1.Volume{{Name: "target", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
			}}},
		},
	}
	if err := controllerutil.SetControllerReference(owner, pod, c.Scheme()); err != nil {
		return fmt.Errorf("owning binder pod %s: %w", name, err)
	}
	if err := c.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating binder pod %s/%s: %w", pod.Namespace, name, err)
	}
	return nil
}

func (r *Reconciler) deleteBinder(ctx context.Context, dv *cdiv1.DataVolume) error {
	return DeleteBinder(ctx, r.Client, dv.Namespace, binderName(dv))
}

// DeleteBinder removes the binder pod namespace/name once its claim is
// bound; a pod already gone is fine.
func DeleteBinder(ctx context.Context, c client.Client, namespace, name string) error {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	err := c.Delete(ctx, pod, client.GracePeriodSeconds(0))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing binder pod %s/%s: %w", namespace, name, err)
	}
	return nil
}

// target is where the bound claim lives: its node (from the volume's node
// affinity) and its directory there.
type target struct {
	node, dir string
}

func (r *Reconciler) target(ctx context.Context, pvc *corev1.PersistentVolumeClaim) (target, error) {
	node, dir, err := VolumeTarget(ctx, r.Client, pvc)
	return target{node: node, dir: dir}, err
}

// VolumeTarget is where a bound claim's volume lives: its node (from the
// volume's node affinity, else the claim's selected node) and its
// directory there.
func VolumeTarget(ctx context.Context, c client.Client, pvc *corev1.PersistentVolumeClaim) (node, dir string, err error) {
	t, err := volumeTarget(ctx, c, pvc)
	return t.node, t.dir, err
}

func volumeTarget(ctx context.Context, c client.Client, pvc *corev1.PersistentVolumeClaim) (target, error) {
	pv := &corev1.PersistentVolume{}
	if err := c.Get(ctx, types.NamespacedName{Name: pvc.Spec.VolumeName}, pv); err != nil {
		return target{}, fmt.Errorf("reading volume %s: %w", pvc.Spec.VolumeName, err)
	}
	t := target{node: pvc.Annotations[AnnSelectedNode]}
	switch s := pv.Spec.PersistentVolumeSource; {
	case s.CSI != nil:
		t.dir = s.CSI.VolumeAttributes["path"]
	case s.HostPath != nil:
		t.dir = s.HostPath.Path
	case s.Local != nil:
		t.dir = s.Local.Path
	}
	if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil {
		for _, term := range a.Required.NodeSelectorTerms {
			for _, e := range term.MatchExpressions {
				if len(e.Values) == 1 && e.Operator == corev1.NodeSelectorOpIn {
					t.node = e.Values[0]
				}
			}
		}
	}
	if t.dir == "" || t.node == "" {
		return t, fmt.Errorf("volume %s has no node-local path virtflow can write", pv.Name)
	}
	return t, nil
}
