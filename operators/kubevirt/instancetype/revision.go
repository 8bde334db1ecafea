package instancetype

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	api "kubevirt.io/api/instancetype"
	"kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A VM keeps the instancetype and preference it was first synced with in
// ControllerRevisions it owns, named in its status, as upstream: editing an
// instancetype later changes no existing VM.

// matched is one matcher of a VM, instancetype or preference.
type matched struct {
	name, kind, revisionName string
	cluster, namespaced      string
	ref                      **kubevirtv1.InstancetypeStatusRef
}

func matchersOf(vm *kubevirtv1.VirtualMachine) []matched {
	var out []matched
	if m := vm.Spec.Instancetype; m != nil {
		out = append(out, matched{m.Name, m.Kind, m.RevisionName, ClusterInstancetypeKind, InstancetypeKind, &vm.Status.InstancetypeRef})
	}
	if m := vm.Spec.Preference; m != nil {
		out = append(out, matched{m.Name, m.Kind, m.RevisionName, ClusterPreferenceKind, PreferenceKind, &vm.Status.PreferenceRef})
	}
	return out
}

// Store brings the VM's status references in line with its matchers,
// storing a ControllerRevision of what a matcher names the first time. It
// changes vm.Status only; the caller writes it.
func Store(ctx context.Context, c client.Client, vm *kubevirtv1.VirtualMachine) error {
	for _, m := range matchersOf(vm) {
		ref := (*m.ref).DeepCopy()
		if ref == nil {
			ref = &kubevirtv1.InstancetypeStatusRef{}
		}
		if (m.name != "" && m.name != ref.Name) || (m.kind != "" && m.kind != ref.Kind) {
			ref.Name, ref.Kind, ref.ControllerRevisionRef = m.name, m.kind, nil
		}
		if m.revisionName != "" && (ref.ControllerRevisionRef == nil || ref.ControllerRevisionRef.Name != m.revisionName) {
			ref.ControllerRevisionRef = &kubevirtv1.ControllerRevisionRef{Name: m.revisionName}
		}
		if ref.ControllerRevisionRef == nil {
			name, err := storeRevision(ctx, c, vm, m)
			if err != nil {
				return fmt.Errorf("error encountered while storing instancetype.kubevirt.io controllerRevisions: %w", err)
			}
			ref.ControllerRevisionRef = &kubevirtv1.ControllerRevisionRef{Name: name}
		}
		if !equality.Semantic.DeepEqual(*m.ref, ref) {
			*m.ref = ref
		}
	}
	return nil
}

// storeRevision creates the ControllerRevision of what m names, or finds
// an identical one already there.
func storeRevision(ctx context.Context, c client.Client, vm *kubevirtv1.VirtualMachine, m matched) (string, error) {
	obj, err := liveObject(ctx, c, vm.Namespace, m)
	if err != nil {
		return "", err
	}
	rev, err := revisionOf(vm, obj)
	if err != nil {
		return "", err
	}
	err = c.Create(ctx, rev)
	if apierrors.IsAlreadyExists(err) {
		have := &appsv1.ControllerRevision{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(rev), have); err != nil {
			return "", fmt.Errorf("failed to get ControllerRevision: %w", err)
		}
		if !sameJSON(have.Data.Raw, rev.Data.Raw) {
			return "", fmt.Errorf("found existing ControllerRevision with unexpected data: %s", rev.Name)
		}
		return rev.Name, nil
	}
	if err != nil {
		return "", fmt.Errorf("failed to create ControllerRevision: %w", err)
	}
	return rev.Name, nil
}

// liveObject reads what a matcher names, with its apiVersion and kind set
// (a revision stores them).
func liveObject(ctx context.Context, r client.Reader, ns string, m matched) (client.Object, error) {
	var obj client.Object
	key := types.NamespacedName{Name: m.name}
	switch k := kindOf(m.kind, m.cluster, m.namespaced); k {
	case ClusterInstancetypeKind:
		obj = &v1beta1.VirtualMachineClusterInstancetype{}
	case InstancetypeKind:
		obj, key.Namespace = &v1beta1.VirtualMachineInstancetype{}, ns
	case ClusterPreferenceKind:
		obj = &v1beta1.VirtualMachineClusterPreference{}
	case PreferenceKind:
		obj, key.Namespace = &v1beta1.VirtualMachinePreference{}, ns
	default:
		return nil, fmt.Errorf("got unexpected kind in %sMatcher: %s", matcherWord(m), m.kind)
	}
	if err := r.Get(ctx, key, obj); err != nil {
		return nil, asServerSays(err, resourceOf(kindOf(m.kind, m.cluster, m.namespaced)), m.name)
	}
	obj.GetObjectKind().SetGroupVersionKind(v1beta1.SchemeGroupVersion.WithKind(kindOf(m.kind, m.cluster, m.namespaced)))
	return obj, nil
}

func matcherWord(m matched) string {
	if m.cluster == ClusterPreferenceKind {
		return "Preference"
	}
	return "Instancetype"
}

func resourceOf(kind string) string {
	return map[string]string{
		ClusterInstancetypeKind: "virtualmachineclusterinstancetypes", InstancetypeKind: "virtualmachineinstancetypes",
		ClusterPreferenceKind: "virtualmachineclusterpreferences", PreferenceKind: "virtualmachinepreferences",
	}[kind]
}

// revisionOf is upstream's revision of obj for vm: named
// <vm>-<object>-<version>-<uid>-<generation>, owned by the VM, labelled
// with the object's identity, holding the object without its metadata
// noise.
func revisionOf(vm *kubevirtv1.VirtualMachine, obj client.Object) (*appsv1.ControllerRevision, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	name, uid, gen := obj.GetName(), obj.GetUID(), obj.GetGeneration()
	obj.SetLabels(nil)
	obj.SetAnnotations(nil)
	obj.SetFinalizers(nil)
	obj.SetOwnerReferences(nil)
	obj.SetManagedFields(nil)
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %s %s: %w", gvk.Kind, name, err)
	}
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:            fmt.Sprintf("%s-%s-%s-%s-%d", vm.Name, name, gvk.Version, uid, gen),
			Namespace:       vm.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(vm, kubevirtv1.VirtualMachineGroupVersionKind)},
			Labels: map[string]string{
				api.ControllerRevisionObjectGenerationLabel: strconv.FormatInt(gen, 10),
				api.ControllerRevisionObjectKindLabel:       gvk.Kind,
				api.ControllerRevisionObjectNameLabel:       name,
				api.ControllerRevisionObjectUIDLabel:        string(uid),
				api.ControllerRevisionObjectVersionLabel:    gvk.Version,
			},
		},
		Data: runtimeRaw(raw),
	}, nil
}

// sameJSON compares two JSON documents by value, not by bytes.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return equality.Semantic.DeepEqual(x, y)
}
