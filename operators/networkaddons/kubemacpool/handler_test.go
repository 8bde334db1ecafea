package kubemacpool

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

func mutator(t *testing.T, p *Pool, namespaces ...*corev1.Namespace) *VMMutator {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	b := fake.NewClientBuilder().WithScheme(scheme)
	for _, ns := range namespaces {
		b = b.WithObjects(ns)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &VMMutator{Pool: p, Namespaces: b.Build(), Mode: OptOut, Now: func() time.Time { return at }}
}

func createRequest(t *testing.T, vm *kubevirtv1.VirtualMachine, dryRun bool) admission.Request {
	t.Helper()
	raw, err := json.Marshal(vm)
	require.NoError(t, err)
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "1", Operation: admissionv1.Create, Namespace: vm.Namespace, Name: vm.Name,
		Object: runtime.RawExtension{Raw: raw}, DryRun: &dryRun,
	}}
}

// applyPatch runs the response's patch over the submitted VM, as the API
// server would.
func applyPatch(t *testing.T, vm *kubevirtv1.VirtualMachine, resp admission.Response) *kubevirtv1.VirtualMachine {
	t.Helper()
	require.NoError(t, resp.Complete(admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: "1"}}))
	require.True(t, resp.Allowed, "%+v", resp.Result)
	require.NotNil(t, resp.PatchType)
	ops := []map[string]any{}
	require.NoError(t, json.Unmarshal(resp.Patch, &ops))
	out := vm.DeepCopy()
	for _, op := range ops {
		if op["path"] == "/spec/template/spec/domain/devices/interfaces/0/macAddress" {
			out.Spec.Template.Spec.Domain.Devices.Interfaces[0].MacAddress, _ = op["value"].(string)
		}
	}
	return out
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func TestAReviewOfAVMWithoutMACsPatchesOneFromTheRange(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	m := mutator(t, p, namespace("default", nil))
	vm := testVM("default", "a", podIface("default", ""))
	got := applyPatch(t, vm, m.Handle(context.Background(), createRequest(t, vm, false)))
	mac := got.Spec.Template.Spec.Domain.Devices.Interfaces[0].MacAddress
	assert.True(t, p.Range().Contains(mac), "%q from the range", mac)
	owner, _, pending, ok := p.Owner(mac)
	require.True(t, ok)
	assert.Equal(t, "vm/default/a", owner)
	assert.True(t, pending, "reserved until the VM is stored")
}

func TestARequestedMACAnotherVMHoldsIsRefusedWithUpstreamsMessage(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	m := mutator(t, p, namespace("default", nil))
	first := testVM("default", "a", podIface("default", "02:00:00:00:00:05"))
	applyPatch(t, first, m.Handle(context.Background(), createRequest(t, first, false)))
	second := testVM("default", "b", podIface("default", "02:00:00:00:00:05"))
	resp := m.Handle(context.Background(), createRequest(t, second, false))
	require.False(t, resp.Allowed)
	assert.Equal(t, int32(http.StatusForbidden), resp.Result.Code)
	assert.Equal(t, "Failed to create virtual machine allocation error: Failed to allocate mac to the vm object: failed to allocate requested mac address", resp.Result.Message)
}

func TestADryRunKeepsNoReservation(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	m := mutator(t, p, namespace("default", nil))
	vm := testVM("default", "a", podIface("default", ""))
	got := applyPatch(t, vm, m.Handle(context.Background(), createRequest(t, vm, true)))
	dry := got.Spec.Template.Spec.Domain.Devices.Interfaces[0].MacAddress
	assert.NotEmpty(t, dry, "a dry run still shows the MAC the VM would get")
	assert.Zero(t, p.Len(), "nothing kept for a VM never stored")
	got = applyPatch(t, vm, m.Handle(context.Background(), createRequest(t, vm, false)))
	assert.Equal(t, dry, got.Spec.Template.Spec.Domain.Devices.Interfaces[0].MacAddress, "the dry run did not move the pool on")
	assert.Equal(t, 1, p.Len())
}

func TestAnIgnoredNamespacePassesUnchanged(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	m := mutator(t, p, namespace("quiet", map[string]string{VMWebhookName: "ignore"}))
	vm := testVM("quiet", "a", podIface("default", ""))
	resp := m.Handle(context.Background(), createRequest(t, vm, false))
	require.True(t, resp.Allowed)
	assert.Empty(t, resp.Patches)
	assert.Zero(t, p.Len())
}

func TestTheSelectorAndTheHandlerAgreeOnManagedNamespaces(t *testing.T) {
	for _, labels := range []map[string]string{nil, {VMWebhookName: "ignore"}, {VMWebhookName: "allocate"}, {"runlevel": "0"}, {"openshift.io/run-level": "1"}} {
		for _, mode := range []OptMode{OptOut, OptIn} {
			sel, err := metav1.LabelSelectorAsSelector(NamespaceSelector(mode))
			require.NoError(t, err)
			assert.Equal(t, NamespaceManaged(mode, labels), sel.Matches(k8slabels.Set(labels)), "%s %v", mode, labels)
		}
	}
}

// TestTheAnswerWaitsForTheJournal: a reservation is kept before the VM's
// MAC is handed out, and a journal that cannot keep it refuses the VM
// rather than promise a MAC a restart would forget.
func TestTheAnswerWaitsForTheJournal(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	m := mutator(t, p, namespace("default", nil))
	var kept []Reservation
	m.Persist = func(context.Context) error { kept = p.Pending(); return nil }
	vm := testVM("default", "a", podIface("default", ""))
	got := applyPatch(t, vm, m.Handle(context.Background(), createRequest(t, vm, false)))
	require.Len(t, kept, 1)
	assert.Equal(t, got.Spec.Template.Spec.Domain.Devices.Interfaces[0].MacAddress, kept[0].MAC)

	m.Persist = func(context.Context) error { return errors.New("apiserver gone") }
	resp := m.Handle(context.Background(), createRequest(t, testVM("default", "b", podIface("default", "")), false))
	require.False(t, resp.Allowed)
	assert.Equal(t, int32(http.StatusInternalServerError), resp.Result.Code)
}
