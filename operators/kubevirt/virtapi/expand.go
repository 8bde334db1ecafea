package virtapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/operators/kubevirt/instancetype"
	"github.com/virtflow/virtflow/operators/kubevirt/virtadmission"
)

// expandVM serves GET virtualmachines/NAME/expand-spec: the VM with its
// instancetype and preference applied and the matchers removed.
func (s *Server) expandVM(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("ns"), r.PathValue("name")
	vm := &kubevirtv1.VirtualMachine{}
	if err := s.Reader.Get(r.Context(), types.NamespacedName{Namespace: ns, Name: name}, vm); err != nil {
		if apierrors.IsNotFound(err) {
			writeError(w, &ActionError{Code: http.StatusNotFound, Message: "virtualmachine.kubevirt.io \"" + name + "\" not found"})
			return
		}
		writeError(w, internal("%v", err))
		return
	}
	out, err := s.expand(r.Context(), vm)
	if err != nil {
		writeError(w, internal("%v", err))
		return
	}
	writeJSON(w, out)
}

// expandBody serves PUT namespaces/NS/expand-vm-spec: the same for a VM
// given in the body, which need not exist.
func (s *Server) expandBody(w http.ResponseWriter, r *http.Request) {
	ns := r.PathValue("ns")
	raw, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil || len(raw) == 0 {
		writeError(w, badRequest("empty request body"))
		return
	}
	vm := &kubevirtv1.VirtualMachine{}
	if err := json.Unmarshal(raw, vm); err != nil {
		writeError(w, badRequest("Can not unmarshal Request body to struct, error: %v", err))
		return
	}
	if vm.Namespace != "" && vm.Namespace != ns {
		writeError(w, badRequest("VM namespace must be empty or %s", ns))
		return
	}
	vm.Namespace = ns
	out, err := s.expand(r.Context(), vm)
	if err != nil {
		writeError(w, badRequest("%v", err))
		return
	}
	writeJSON(w, out)
}

// expand applies what the VM names, as upstream's expander: a VM naming
// nothing comes back unchanged; defaults are set after the instancetype
// so they never conflict with it.
func (s *Server) expand(ctx context.Context, vm *kubevirtv1.VirtualMachine) (*kubevirtv1.VirtualMachine, error) {
	if vm.Spec.Instancetype == nil && vm.Spec.Preference == nil {
		return vm, nil
	}
	it, err := instancetype.InstancetypeForVM(ctx, s.Reader, vm)
	if err != nil {
		return nil, err
	}
	pref, err := instancetype.PreferenceForVM(ctx, s.Reader, vm)
	if err != nil {
		return nil, err
	}
	out := vm.DeepCopy()
	if out.Spec.Template == nil {
		return nil, errors.New("missing virtual machine template")
	}
	t := out.Spec.Template
	virtadmission.AddVolumeDisks(&t.Spec)
	if cs := instancetype.Apply(field.NewPath("spec", "template", "spec"), it, pref, &t.Spec, &t.ObjectMeta); len(cs) > 0 {
		return nil, cs.Err()
	}
	virtadmission.SetVMIDefaults(&t.Spec)
	out.Spec.Instancetype, out.Spec.Preference = nil, nil
	out.Status.InstancetypeRef, out.Status.PreferenceRef = nil, nil
	return out, nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
