package modifydataobject

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// deleteObject deletes the object o names and does not wait for it to go,
// as upstream; one already gone is an error, as upstream.
func deleteObject(ctx context.Context, env stepenv.Env, o *options) error {
	meta := metav1.ObjectMeta{Namespace: o.namespace, Name: o.deleteName}
	var obj crclient.Object
	switch o.deleteKind {
	case kindDataVolume:
		obj = &cdiv1beta1.DataVolume{ObjectMeta: meta}
	case kindDataSource:
		obj = &cdiv1beta1.DataSource{ObjectMeta: meta}
	default:
		obj = &corev1.PersistentVolumeClaim{ObjectMeta: meta}
	}
	if err := env.Client.Delete(ctx, obj); err != nil {
		return err
	}
	env.Logf("deleted %s %s/%s", o.deleteKind, o.namespace, o.deleteName)
	return nil
}

// deleteOld deletes the object obj would replace and waits until it is
// gone. A DataVolume CDI already collected leaves its claim, which holds
// the name; that claim goes instead.
func deleteOld(ctx context.Context, env stepenv.Env, obj *unstructured.Unstructured) error {
	key := crclient.ObjectKeyFromObject(obj)
	old := &unstructured.Unstructured{}
	old.SetGroupVersionKind(obj.GroupVersionKind())
	err := env.Client.Get(ctx, key, old)
	if apierrors.IsNotFound(err) && obj.GetKind() == kindDataVolume {
		return deleteOldClaim(ctx, env, key)
	}
	old.SetNamespace(key.Namespace)
	old.SetName(key.Name)
	if err := env.Client.Delete(ctx, old); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return waitGone(ctx, env, old)
}

func deleteOldClaim(ctx context.Context, env stepenv.Env, key crclient.ObjectKey) error {
	pvc := &corev1.PersistentVolumeClaim{}
	err := env.Client.Get(ctx, key, pvc)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := env.Client.Delete(ctx, pvc); err != nil {
		return err
	}
	return waitGone(ctx, env, pvc)
}
