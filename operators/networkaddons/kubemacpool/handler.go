package kubemacpool

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// MutatePath is where the VirtualMachine webhook is served, upstream's path.
const MutatePath = "/mutate-virtualmachines"

// VMMutator is the VirtualMachine mutating webhook's handler: it decodes
// the submitted (and stored) VM, asks the pool for its MACs and answers
// with the patch or kubemacpool's refusal.
type VMMutator struct {
	Pool *Pool
	// Namespaces reads the VM's namespace for its opt-in/opt-out label.
	Namespaces client.Reader
	Mode       OptMode
	// Persist, when set, keeps the reservations before the answer is sent:
	// a restart right after must not offer the same MACs again.
	Persist func(context.Context) error
	// Now stamps the reservations; time.Now when nil.
	Now func() time.Time
}

// Handle answers one AdmissionReview request.
func (m *VMMutator) Handle(ctx context.Context, req admission.Request) admission.Response {
	vm, old, err := decodeVMs(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if vm.Namespace == "" {
		vm.Namespace = req.Namespace
	}
	ns := &corev1.Namespace{}
	if err := m.Namespaces.Get(ctx, client.ObjectKey{Name: vm.Namespace}, ns); err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("reading namespace %s: %w", vm.Namespace, err))
	}
	admit := m.Pool.Admit
	if req.DryRun != nil && *req.DryRun {
		admit = m.Pool.AdmitDryRun
	}
	review, err := admit(m.Mode, ns.Labels, old, vm, m.now())
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if !review.Allowed {
		return admission.Denied(review.Message)
	}
	if m.Persist != nil && len(review.Patch) > 0 && (req.DryRun == nil || !*req.DryRun) {
		if err := m.Persist(ctx); err != nil {
			return admission.Errored(http.StatusInternalServerError, err)
		}
	}
	return admission.Patched("", review.Patch...)
}

func (m *VMMutator) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// decodeVMs reads the request's VM and, on update, the stored one.
func decodeVMs(req admission.Request) (vm, old *kubevirtv1.VirtualMachine, err error) {
	vm = &kubevirtv1.VirtualMachine{}
	if err := json.Unmarshal(req.Object.Raw, vm); err != nil {
		return nil, nil, fmt.Errorf("decoding the virtual machine: %w", err)
	}
	if req.Operation != admissionv1.Update || len(req.OldObject.Raw) == 0 {
		return vm, nil, nil
	}
	old = &kubevirtv1.VirtualMachine{}
	if err := json.Unmarshal(req.OldObject.Raw, old); err != nil {
		return nil, nil, fmt.Errorf("decoding the stored virtual machine: %w", err)
	}
	if old.Namespace == "" {
		old.Namespace = req.Namespace
	}
	return vm, old, nil
}
