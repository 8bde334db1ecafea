package virtapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/kubevirt/evacuation"
)

// evacuationNodePath is the field an eviction set and a cancel removes.
const evacuationNodePath = "/status/evacuationNodeName"

// evacuateCancel serves PUT .../evacuate/cancel of a VMI, or of a VM's
// instance. Removing status.evacuationNodeName is the whole effect:
// virt-controller's evacuation controller then creates no further
// migration for the VMI, while one it already created runs on (upstream
// leaves it too; deleting it, or virtctl migrate-cancel, stops it).
func (s *Server) evacuateCancel(ofVM bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.cancelEvacuation(r, r.PathValue("ns"), r.PathValue("name"), ofVM); err != nil {
			writeError(w, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}

// cancelEvacuation follows upstream's order: the VMI, the drain taint,
// then nothing to do when it is not marked, before the body is read.
func (s *Server) cancelEvacuation(r *http.Request, ns, name string, ofVM bool) error {
	ctx := r.Context()
	vmi, err := s.fetchVMI(ctx, ns, name, ofVM)
	if err != nil {
		return err
	}
	if err := s.refuseDrainTainted(ctx, vmi); err != nil {
		return err
	}
	if vmi.Status.EvacuationNodeName == "" {
		return nil
	}
	var opts kubevirtv1.EvacuateCancelOptions
	if err := decodeOptions(r, &opts); err != nil {
		return err
	}
	return s.unmark(ctx, vmi, opts)
}

// unmark removes the evacuation node only if it is still the one the
// caller named (a JSON patch test), so a cancel meant for one drain never
// undoes a later one; a mismatch fails as upstream's, with a 500.
func (s *Server) unmark(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, opts kubevirtv1.EvacuateCancelOptions) error {
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": evacuationNodePath, "value": opts.EvacuationNodeName},
		{"op": "remove", "path": evacuationNodePath},
	})
	if err != nil {
		return internal("encoding the patch of %s: %v", vmi.Name, err)
	}
	// The VMI's status is its own subresource here (upstream's VMI has
	// none and patches the object).
	err = s.Actions.Client.Status().Patch(ctx, vmi, client.RawPatch(types.JSONPatchType, patch),
		&client.SubResourcePatchOptions{PatchOptions: client.PatchOptions{DryRun: opts.DryRun}})
	if err != nil {
		return internal("%s", err.Error())
	}
	return nil
}

// refuseDrainTainted is upstream's validateEvacuationNode: while the node
// the VMI is to leave (else its own node) carries the drain taint, the
// evacuation controller moves every VMI off it whatever is marked, so a
// cancel could not stop anything and is refused.
func (s *Server) refuseDrainTainted(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) error {
	key, err := s.drainTaintKey(ctx)
	if err != nil {
		return err
	}
	nodeName := vmi.Status.EvacuationNodeName
	if nodeName == "" {
		nodeName = vmi.Status.NodeName
	}
	node := &corev1.Node{}
	if err := s.Reader.Get(ctx, client.ObjectKey{Name: nodeName}, node); err != nil {
		return internal("%s", err.Error())
	}
	if evacuation.DrainTainted(node, key) {
		return badRequest("Node %q has NodeDrainTaintKey %q", node.Name, evacuation.DrainTaint(key).String())
	}
	return nil
}

// drainTaintKey is the KubeVirt CR's, upstream's default without one.
func (s *Server) drainTaintKey(ctx context.Context) (string, error) {
	kvs := &kubevirtv1.KubeVirtList{}
	if err := s.Reader.List(ctx, kvs); err != nil {
		return "", internal("reading the KubeVirt configuration: %v", err)
	}
	if len(kvs.Items) == 0 {
		return evacuation.DrainTaintKey(nil), nil
	}
	return evacuation.DrainTaintKey(&kvs.Items[0]), nil
}

// fetchVMI reads the VMI, or the VM's, with upstream's refusals: a VM
// whose instance was never created is a conflict, and a VMI of that name
// the VM does not own is no instance of it.
func (s *Server) fetchVMI(ctx context.Context, ns, name string, ofVM bool) (*kubevirtv1.VirtualMachineInstance, error) {
	key := types.NamespacedName{Namespace: ns, Name: name}
	vm := &kubevirtv1.VirtualMachine{}
	if ofVM {
		if err := s.Reader.Get(ctx, key, vm); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachine.kubevirt.io %q not found", name)}
			}
			return nil, internal("unable to retrieve vm [%s]: %v", name, err)
		}
		if !vm.Status.Created {
			return nil, vmConflict(name, "VMI is not started")
		}
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := s.Reader.Get(ctx, key, vmi); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachineinstance.kubevirt.io %q not found", name)}
		}
		return nil, internal("unable to retrieve vmi [%s]: %v", name, err)
	}
	if ofVM && !ownedBy(vmi, vm) {
		// Upstream's message prints its error, nil by then.
		return nil, internal("unable to retrieve vmi [%s] for vm: <nil>", name)
	}
	return vmi, nil
}

func ownedBy(vmi *kubevirtv1.VirtualMachineInstance, vm *kubevirtv1.VirtualMachine) bool {
	for _, ref := range vmi.OwnerReferences {
		if ref.UID == vm.UID {
			return true
		}
	}
	return false
}
