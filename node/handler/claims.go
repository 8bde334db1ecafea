package handler

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/vmivolumes"
	"github.com/virtflow/virtflow/node/launcher"
)

// resolveClaims maps each PVC or DataVolume volume of the VMI to the node
// path of its bound PersistentVolume (hostPath, local, or a CSI volume that
// publishes its path in volumeAttributes["path"]).
func resolveClaims(ctx context.Context, c client.Client, vmi *kubevirtv1.VirtualMachineInstance) (map[string]launcher.PVCPath, error) {
	out := map[string]launcher.PVCPath{}
	for _, v := range vmi.Spec.Volumes {
		name := vmivolumes.ClaimName(v)
		if name == "" {
			continue
		}
		p, err := claimPath(ctx, c, vmi.Namespace, name)
		if err != nil {
			return nil, err
		}
		out[name] = p
	}
	return out, nil
}

// binderLabel marks a DataVolume's binder pod (see operators/datavolume).
const binderLabel = "cdi.kubevirt.io/binder-for"

// errVolumesNotReady holds a launcher until its DataVolumes are filled:
// the scheduler placed the pod (which bound its claims), and the import
// into them runs on this node now.
var errVolumesNotReady = errors.New("waiting for DataVolumes to be populated")

func dataVolumesReady(ctx context.Context, c client.Client, vmi *kubevirtv1.VirtualMachineInstance) error {
	for _, v := range vmi.Spec.Volumes {
		if v.DataVolume == nil {
			continue
		}
		dv := &cdiv1.DataVolume{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: vmi.Namespace, Name: v.DataVolume.Name}, dv); err != nil {
			return fmt.Errorf("reading DataVolume %s: %w", v.DataVolume.Name, err)
		}
		if dv.Status.Phase == cdiv1.Failed {
			return fmt.Errorf("DataVolume %s failed", dv.Name)
		}
		if dv.Status.Phase != cdiv1.Succeeded {
			return errVolumesNotReady
		}
	}
	return nil
}

func claimPath(ctx context.Context, c client.Client, ns, name string) (launcher.PVCPath, error) {
	pvc := &corev1.PersistentVolumeClaim{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, pvc); err != nil {
		return launcher.PVCPath{}, fmt.Errorf("reading claim %s/%s: %w", ns, name, err)
	}
	if pvc.Spec.VolumeName == "" {
		return launcher.PVCPath{}, fmt.Errorf("claim %s/%s is not bound yet", ns, name)
	}
	pv := &corev1.PersistentVolume{}
	if err := c.Get(ctx, types.NamespacedName{Name: pvc.Spec.VolumeName}, pv); err != nil {
		return launcher.PVCPath{}, fmt.Errorf("reading volume %s of claim %s/%s: %w", pvc.Spec.VolumeName, ns, name, err)
	}
	block := pv.Spec.VolumeMode != nil && *pv.Spec.VolumeMode == corev1.PersistentVolumeBlock
	switch s := pv.Spec.PersistentVolumeSource; {
	case s.HostPath != nil:
		return launcher.PVCPath{Path: s.HostPath.Path, Block: block}, nil
	case s.Local != nil:
		return launcher.PVCPath{Path: s.Local.Path, Block: block}, nil
	case s.CSI != nil && s.CSI.VolumeAttributes["path"] != "":
		return launcher.PVCPath{Path: s.CSI.VolumeAttributes["path"], Block: block}, nil
	}
	return launcher.PVCPath{}, fmt.Errorf("volume %s of claim %s/%s has no node path virtflow can use", pv.Name, ns, name)
}
