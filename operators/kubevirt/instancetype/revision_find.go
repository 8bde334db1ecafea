package instancetype

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	api "kubevirt.io/api/instancetype"
	"kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func runtimeRaw(raw []byte) runtime.RawExtension { return runtime.RawExtension{Raw: raw} }

// InstancetypeForVM finds the VM's instancetype as upstream does: the
// revision its matcher names, else the one its status stores for that
// same object, else the live object.
func InstancetypeForVM(ctx context.Context, r client.Reader, vm *kubevirtv1.VirtualMachine) (*v1beta1.VirtualMachineInstancetypeSpec, error) {
	m := vm.Spec.Instancetype
	if m == nil {
		return nil, nil
	}
	raw, err := storedRevision(ctx, r, vm.Namespace, m.Name, m.RevisionName, vm.Status.InstancetypeRef)
	if err != nil || raw == nil {
		if err == nil {
			return FindInstancetype(ctx, r, vm.Namespace, m)
		}
		return nil, err
	}
	var obj struct {
		Spec v1beta1.VirtualMachineInstancetypeSpec `json:"spec"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("failed to decode object in ControllerRevision: %w", err)
	}
	return &obj.Spec, nil
}

// PreferenceForVM is InstancetypeForVM for the VM's preference.
func PreferenceForVM(ctx context.Context, r client.Reader, vm *kubevirtv1.VirtualMachine) (*v1beta1.VirtualMachinePreferenceSpec, error) {
	m := vm.Spec.Preference
	if m == nil {
		return nil, nil
	}
	raw, err := storedRevision(ctx, r, vm.Namespace, m.Name, m.RevisionName, vm.Status.PreferenceRef)
	if err != nil || raw == nil {
		if err == nil {
			return FindPreference(ctx, r, vm.Namespace, m)
		}
		return nil, err
	}
	var obj struct {
		Spec v1beta1.VirtualMachinePreferenceSpec `json:"spec"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("failed to decode object in ControllerRevision: %w", err)
	}
	return &obj.Spec, nil
}

// storedRevision is the stored object a matcher resolves to, nil when it
// resolves to the live one: the matcher's revisionName, else the status's
// revision if it stores the object of that name.
func storedRevision(ctx context.Context, r client.Reader, ns, name, revisionName string, ref *kubevirtv1.InstancetypeStatusRef) ([]byte, error) {
	if revisionName != "" {
		return readRevision(ctx, r, ns, revisionName, "")
	}
	if ref == nil || ref.ControllerRevisionRef == nil || ref.ControllerRevisionRef.Name == "" {
		return nil, nil
	}
	return readRevision(ctx, r, ns, ref.ControllerRevisionRef.Name, name)
}

// readRevision reads a revision's object; with want set, a revision of
// another object is ignored (nil), as upstream does after a matcher change.
func readRevision(ctx context.Context, r client.Reader, ns, name, want string) ([]byte, error) {
	rev := &appsv1.ControllerRevision{}
	if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, rev); err != nil {
		return nil, asServerSaysApps(err, name)
	}
	if want != "" && rev.Labels[api.ControllerRevisionObjectNameLabel] != want {
		return nil, nil
	}
	if v := rev.Labels[api.ControllerRevisionObjectVersionLabel]; v != "" && v != v1beta1.SchemeGroupVersion.Version {
		return nil, fmt.Errorf("unexpected type in ControllerRevision: %s", v)
	}
	return rev.Data.Raw, nil
}
