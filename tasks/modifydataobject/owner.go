package modifydataobject

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/podowner"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// setPodOwner makes the TaskRun's pod obj's only owner, so the object
// goes when the TaskRun (and its pod) is deleted.
func setPodOwner(ctx context.Context, env stepenv.Env, o *options, obj metav1.Object) error {
	if o.podName == nil {
		return fmt.Errorf("pod name env variable is not set")
	}
	if o.podNamespace == nil {
		return fmt.Errorf("pod namespace env variable is not set")
	}
	pod := &corev1.Pod{}
	if err := env.Client.Get(ctx, crclient.ObjectKey{Namespace: *o.podNamespace, Name: *o.podName}, pod); err != nil {
		return err
	}
	return podowner.Set(obj, pod)
}
