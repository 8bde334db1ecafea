package virt

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/kube/launchername"
)

// networkStatusAnnotation is what Multus wrote of the source pod's
// interfaces; the target gets its own.
const networkStatusAnnotation = "k8s.v1.cni.cncf.io/network-status"

// CreateTargetPod creates the migration's target launcher pod: the
// source pod's spec (the same VMI, so the same volumes, networks and
// resources), unplaced, kept off every node running a launcher of the VMI
// (upstream's required anti-affinity) and on nodes matching the
// migration's addedNodeSelector. Its name comes from the migration's UID,
// so a retried step finds the pod it created.
func (a *Activities) CreateTargetPod(ctx context.Context, req virt.NodeRequest) (string, error) {
	mig, err := a.migration(ctx, req)
	if err != nil {
		return "", err
	}
	src, err := a.sourcePodOf(ctx, req)
	if err != nil {
		return "", err
	}
	pod := targetPod(src, req, mig.Spec.AddedNodeSelector)
	err = a.Client.Create(ctx, pod)
	if apierrors.IsAlreadyExists(err) {
		found := &corev1.Pod{}
		if err := a.Client.Get(ctx, client.ObjectKeyFromObject(pod), found); err != nil {
			return "", fmt.Errorf("reading target pod %s: %w", pod.Name, err)
		}
		if found.Labels[kubevirtv1.MigrationJobLabel] != req.Migration.UID {
			return "", fmt.Errorf("pod %s exists and is not this migration's target", pod.Name)
		}
		return pod.Name, nil
	}
	if err != nil {
		return "", fmt.Errorf("creating target pod %s: %w", pod.Name, err)
	}
	return pod.Name, nil
}

// targetPod is the source pod made a target.
func targetPod(src *corev1.Pod, req virt.NodeRequest, addedSelector map[string]string) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: src.Namespace, Name: targetPodName(req.VMI.Name, req.Migration.UID),
		Labels: map[string]string{}, Annotations: map[string]string{}, OwnerReferences: src.OwnerReferences}}
	for k, v := range src.Labels {
		pod.Labels[k] = v
	}
	for k, v := range src.Annotations {
		pod.Annotations[k] = v
	}
	delete(pod.Annotations, networkStatusAnnotation)
	pod.Labels[kubevirtv1.MigrationJobLabel] = req.Migration.UID
	pod.Annotations[kubevirtv1.MigrationJobNameAnnotation] = req.Migration.Name
	pod.Spec = *src.Spec.DeepCopy()
	pod.Spec.NodeName = ""
	if pod.Spec.NodeSelector == nil {
		pod.Spec.NodeSelector = map[string]string{}
	}
	for k, v := range addedSelector {
		pod.Spec.NodeSelector[k] = v
	}
	pod.Spec.Affinity = awayFrom(pod.Spec.Affinity, req.VMI.UID)
	// The guest arrives on the target only at the handover: probing it
	// before would kill a slow migration's target.
	for i := range pod.Spec.Containers {
		pod.Spec.Containers[i].LivenessProbe, pod.Spec.Containers[i].ReadinessProbe = nil, nil
	}
	return pod
}

// awayFrom adds upstream's required anti-affinity: no node that runs a
// launcher of the VMI (the source) may take the target.
func awayFrom(a *corev1.Affinity, vmiUID string) *corev1.Affinity {
	out := a.DeepCopy()
	if out == nil {
		out = &corev1.Affinity{}
	}
	if out.PodAntiAffinity == nil {
		out.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	out.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(out.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{kubevirtv1.CreatedByLabel: vmiUID}},
			TopologyKey:   corev1.LabelHostname,
		})
	return out
}

// targetPodName is a launcher name seeded by the migration's UID.
func targetPodName(vmi, migrationUID string) string { return launchername.For(vmi, migrationUID) }
