package platform

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	"github.com/virtflow/virtflow/kube/storageclass"
	"github.com/virtflow/virtflow/node/csi"
)

// Default hostpath storage of an embedded install.
const (
	HostpathProvisionerName = "hostpath-provisioner"
	HostpathStoragePool     = "local"
	HostpathPoolPath        = "/var/hpvolumes"
	HostpathStorageClass    = "hostpath-csi"
)

// EnsureHostpathStorage creates what the hostpath-provisioner docs have an
// admin create: a HostPathProvisioner with one storage pool and its
// WaitForFirstConsumer StorageClass, made the default class when the
// cluster has none. Existing objects are left as they are.
func EnsureHostpathStorage(ctx context.Context, c client.Client) error {
	hpp := &hppv1beta1.HostPathProvisioner{
		ObjectMeta: metav1.ObjectMeta{Name: HostpathProvisionerName},
		Spec: hppv1beta1.HostPathProvisionerSpec{
			StoragePools: []hppv1beta1.StoragePool{{Name: HostpathStoragePool, Path: HostpathPoolPath}},
		},
	}
	if err := c.Create(ctx, hpp); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating HostPathProvisioner %s: %w", hpp.Name, err)
	}
	existing, err := storageclass.Default(ctx, c)
	if err != nil {
		return err
	}
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	del := corev1.PersistentVolumeReclaimDelete
	sc := &storagev1.StorageClass{
		ObjectMeta:  metav1.ObjectMeta{Name: HostpathStorageClass, Annotations: map[string]string{}},
		Provisioner: csi.DriverName, Parameters: map[string]string{"storagePool": HostpathStoragePool},
		VolumeBindingMode: &wffc, ReclaimPolicy: &del,
	}
	if existing == "" {
		sc.Annotations[storageclass.AnnIsDefault] = "true"
	}
	if err := c.Create(ctx, sc); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating StorageClass %s: %w", sc.Name, err)
	}
	return ensureCSIDriver(ctx, c)
}

// ensureCSIDriver registers the driver as the HPP operator does: its
// volumes are node-local directories and need no attach step.
func ensureCSIDriver(ctx context.Context, c client.Client) error {
	no := false
	drv := &storagev1.CSIDriver{
		ObjectMeta: metav1.ObjectMeta{Name: csi.DriverName},
		Spec: storagev1.CSIDriverSpec{
			AttachRequired: &no, PodInfoOnMount: &no,
			VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent},
		},
	}
	if err := c.Create(ctx, drv); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating CSIDriver %s: %w", drv.Name, err)
	}
	return nil
}
