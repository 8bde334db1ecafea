// Package podowner makes the TaskRun's pod the owner of what a step
// creates, as upstream's setOwnerReference does, so that the object goes
// when the TaskRun, and with it the pod, is deleted.
package podowner

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Set makes pod obj's only owner. Kubernetes takes an owner only in the
// object's own namespace.
func Set(obj metav1.Object, pod *corev1.Pod) error {
	if obj.GetNamespace() != pod.Namespace {
		return errors.New("can't create owner reference for objects in different namespaces")
	}
	obj.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion: "v1",
		Kind:       "Pod",
		Name:       pod.Name,
		UID:        pod.UID,
	}})
	return nil
}
