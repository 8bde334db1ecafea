package createvm

import (
	"context"
	"errors"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/podowner"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Environment variables the Task sets from the downward API, naming the
// TaskRun's pod.
const (
	podNameEnv      = "POD_NAME"
	podNamespaceEnv = "POD_NAMESPACE"
)

// setPodOwnerReference makes the TaskRun's pod the only owner of obj, so
// the object goes when the TaskRun does. Only a step in a pod can do so:
// the pod is the one POD_NAME and POD_NAMESPACE name.
func setPodOwnerReference(ctx context.Context, env stepenv.Env, obj metav1.Object) error {
	name, ok := os.LookupEnv(podNameEnv)
	if !ok {
		return errors.New("pod name env variable is not set")
	}
	namespace, ok := os.LookupEnv(podNamespaceEnv)
	if !ok {
		return errors.New("pod namespace env variable is not set")
	}
	pod := &corev1.Pod{}
	if err := env.Client.Get(ctx, crclient.ObjectKey{Namespace: namespace, Name: name}, pod); err != nil {
		return fmt.Errorf("getting the TaskRun's pod %s/%s: %w", namespace, name, err)
	}
	return podowner.Set(obj, pod)
}
