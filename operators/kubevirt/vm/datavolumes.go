package vm

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// ensureDataVolumes creates the DataVolumes of the VM's
// dataVolumeTemplates, owned by the VM, as virt-controller does: they
// exist (and import) whether or not the VM runs. The launcher pod waits on
// its node until they are populated.
func (r *Reconciler) ensureDataVolumes(ctx context.Context, vm *kubevirtv1.VirtualMachine) error {
	for _, t := range vm.Spec.DataVolumeTemplates {
		dv := &cdiv1.DataVolume{
			ObjectMeta: metav1.ObjectMeta{
				Name: t.Name, Namespace: vm.Namespace, Labels: t.Labels, Annotations: t.Annotations,
			},
			Spec: *t.Spec.DeepCopy(),
		}
		if err := controllerutil.SetControllerReference(vm, dv, r.Client.Scheme()); err != nil {
			return err
		}
		err := r.Client.Create(ctx, dv)
		if err == nil {
			r.Recorder.Eventf(vm, corev1.EventTypeNormal, "SuccessfulDataVolumeCreate", "Created DataVolume %s", dv.Name)
			continue
		}
		if !apierrors.IsAlreadyExists(err) {
			r.Recorder.Eventf(vm, corev1.EventTypeWarning, "FailedDataVolumeCreate", "Error creating DataVolume %s: %v", dv.Name, err)
			return fmt.Errorf("creating DataVolume %s of VirtualMachine %s: %w", dv.Name, vm.Name, err)
		}
	}
	return nil
}
