package ipamcontroller

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// launcherPod is upstream's test pod: pod1 in ns1, on networks (no
// annotation when empty), a VM's launcher when vm is set.
func launcherPod(networks, vm string, extra map[string]string) *corev1.Pod {
	a := map[string]string{}
	if networks != "" {
		a[NetworksAnnotation] = networks
	}
	if vm != "" {
		a[kubevirtv1.DomainAnnotation] = vm
	}
	for k, v := range extra {
		a[k] = v
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "pod1", Annotations: a}}
}

func withMAC(vmi *kubevirtv1.VirtualMachineInstance, mac string) *kubevirtv1.VirtualMachineInstance {
	vmi.Spec.Domain.Devices.Interfaces[0].MacAddress = mac
	return vmi
}

func withIPRequests(vmi *kubevirtv1.VirtualMachineInstance, requests string) *kubevirtv1.VirtualMachineInstance {
	vmi.Annotations = map[string]string{IPRequestsAnnotation: requests}
	return vmi
}

func admit(t *testing.T, op admissionv1.Operation, pod *corev1.Pod, objs ...client.Object) admission.Response {
	t.Helper()
	raw, err := json.Marshal(pod)
	require.NoError(t, err)
	c := newClient(t, objs...)
	m := &PodMutator{Client: c, APIReader: c, DefaultNetNADNamespace: "randomNS"}
	return m.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, Object: runtime.RawExtension{Raw: raw}}})
}

func allowed(msg string) admissionv1.AdmissionResponse {
	return admissionv1.AdmissionResponse{Allowed: true, Result: &metav1.Status{Message: msg, Code: http.StatusOK}}
}

func refused(code int32, msg string) admissionv1.AdmissionResponse {
	r := admissionv1.AdmissionResponse{Result: &metav1.Status{Message: msg, Code: code}}
	if code == http.StatusForbidden {
		r.Result.Reason = metav1.StatusReasonForbidden
	}
	return r
}

func add(key, value string) jsonpatch.JsonPatchOperation {
	return jsonpatch.NewOperation("add", "/metadata/annotations/"+pointerEscaper.Replace(key), value)
}

func replace(key, value string) jsonpatch.JsonPatchOperation {
	return jsonpatch.NewOperation("replace", "/metadata/annotations/"+pointerEscaper.Replace(key), value)
}

const claimedNetworks = `[{"name":"supadupanet","namespace":"ns1","ipam-claim-reference":"vm1.randomnet"}]`

// TestThePodMutatorAnswersAsUpstreams is upstream's table of launcher pods
// and definitions, with its answers.
func TestThePodMutatorAnswersAsUpstreams(t *testing.T) {
	denied := `multus default network annotation "v1.multus-cni.io/default-network" is not allowed on pod creation`
	cases := []struct {
		name     string
		pod      *corev1.Pod
		objs     []client.Object
		response admissionv1.AdmissionResponse
		patches  []jsonpatch.JsonPatchOperation
	}{
		{"a pod of no VM", &corev1.Pod{}, []client.Object{newVM(), newVMI(), persistentNAD()}, allowed("not a VM"), nil},
		{"a pod of no VM on a network keeping its IPs", launcherPod(testNAD, "", nil), []client.Object{persistentNAD()}, allowed("not a VM"), nil},
		{"primary and secondary networks keeping their IPs", launcherPod(testNAD, testVM, nil),
			[]client.Object{newVM(), newVMI(), persistentNAD(), primaryNAD()}, admissionv1.AdmissionResponse{},
			[]jsonpatch.JsonPatchOperation{add(PrimaryUDNClaimAnnotation, "vm1.podnet"), replace(NetworksAnnotation, claimedNetworks)}},
		{"a primary network keeping its IPs", launcherPod("", testVM, nil), []client.Object{newVM(), newVMI(), primaryNAD()},
			admissionv1.AdmissionResponse{}, []jsonpatch.JsonPatchOperation{add(PrimaryUDNClaimAnnotation, "vm1.podnet")}},
		{"a primary network and a MAC", launcherPod("", testVM, nil), []client.Object{newVM(), withMAC(newVMI(), "02:03:04:05:06:07"), primaryNAD()},
			admissionv1.AdmissionResponse{}, []jsonpatch.JsonPatchOperation{add(PrimaryUDNClaimAnnotation, "vm1.podnet"),
				add(DefaultNetworkAnnotation, `[{"name":"default","namespace":"randomNS","mac":"02:03:04:05:06:07","ipam-claim-reference":"vm1.podnet"}]`)}},
		{"a primary network, a MAC and addresses", launcherPod("", testVM, nil),
			[]client.Object{newVM(), withIPRequests(withMAC(newVMI(), "02:03:04:05:06:07"), `{"podnet":["192.168.1.10","fd20:1234::200"]}`), primaryNAD()},
			admissionv1.AdmissionResponse{}, []jsonpatch.JsonPatchOperation{add(PrimaryUDNClaimAnnotation, "vm1.podnet"),
				add(DefaultNetworkAnnotation, `[{"name":"default","namespace":"randomNS","ips":["192.168.1.10/16","fd20:1234::200/64"],"mac":"02:03:04:05:06:07","ipam-claim-reference":"vm1.podnet"}]`)}},
		{"a secondary network keeping its IPs", launcherPod(testNAD, testVM, nil), []client.Object{newVM(), newVMI(), persistentNAD()},
			admissionv1.AdmissionResponse{}, []jsonpatch.JsonPatchOperation{replace(NetworksAnnotation, claimedNetworks)}},
		{"a network not keeping its IPs", launcherPod(testNAD, testVM, nil), []client.Object{newVM(), newVMI(), nad(testNAD, `{"name": "goodnet"}`)},
			allowed("carry on"), nil},
		{"an annotation that does not parse", launcherPod("{not json}", testVM, nil), []client.Object{newVM(), newVMI(), persistentNAD()},
			refused(http.StatusBadRequest, "failed to parse pod network selection elements"), nil},
		{"a definition not there yet", launcherPod(testNAD, testVM, nil), []client.Object{newVM(), newVMI()}, allowed("carry on"), nil},
		{"a launcher on no network but the pod's", launcherPod("", testVM, nil), nil, allowed("no mutation required"), nil},
		{"a launcher whose VMI is not there", launcherPod(testNAD, testVM, nil), []client.Object{persistentNAD()},
			refused(http.StatusInternalServerError, `failed to access the VMI running in pod "ns1/pod1": virtualmachineinstances.kubevirt.io "vm1" not found`), nil},
		{"a default network annotation on creation", launcherPod("", testVM, map[string]string{DefaultNetworkAnnotation: `[{"name":"podnet"}]`}),
			[]client.Object{newVM(), withIPRequests(newVMI(), `{"podnet":["192.168.1.10"]}`), primaryNAD()}, refused(http.StatusForbidden, denied), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := admit(t, admissionv1.Create, tc.pod, tc.objs...)
			if tc.patches != nil {
				pt := admissionv1.PatchTypeJSONPatch
				tc.response = admissionv1.AdmissionResponse{Allowed: true, PatchType: &pt}
			}
			assert.Equal(t, tc.response, resp.AdmissionResponse)
			assert.ElementsMatch(t, tc.patches, resp.Patches)
		})
	}
}

func TestAnUpdateMayCarryTheDefaultNetworkAnnotation(t *testing.T) {
	pod := launcherPod("", testVM, map[string]string{DefaultNetworkAnnotation: `[{"name":"podnet"}]`})
	resp := admit(t, admissionv1.Update, pod, newVM(), withIPRequests(newVMI(), `{"podnet":["192.168.1.10"]}`), primaryNAD())
	require.True(t, resp.Allowed)
	assert.Contains(t, resp.Patches, replace(DefaultNetworkAnnotation,
		`[{"name":"default","namespace":"randomNS","ips":["192.168.1.10/16"],"ipam-claim-reference":"vm1.podnet"}]`))
}

// TestTheLaunchersOwnElementsKeepTheirFields: what virt-controller asks of
// Multus (interface, MAC) is kept beside the claim, and an annotation
// already naming it changes nothing.
func TestTheLaunchersOwnElementsKeepTheirFields(t *testing.T) {
	networks := `[{"name":"supadupanet","namespace":"ns1","interface":"pod16367aadb6f","mac":"02:00:00:aa:bb:cc","cni-args":{"k":"v"}}]`
	resp := admit(t, admissionv1.Create, launcherPod(networks, testVM, nil), newVM(), newVMI(), persistentNAD())
	want := `[{"name":"supadupanet","namespace":"ns1","mac":"02:00:00:aa:bb:cc","interface":"pod16367aadb6f","cni-args":{"k":"v"},"ipam-claim-reference":"vm1.randomnet"}]`
	assert.Equal(t, []jsonpatch.JsonPatchOperation{replace(NetworksAnnotation, want)}, resp.Patches)

	again := admit(t, admissionv1.Update, launcherPod(want, testVM, nil), newVM(), newVMI(), persistentNAD())
	assert.Equal(t, allowed("mutation not needed"), again.AdmissionResponse)
}

func TestTheCommaSeparatedFormIsRead(t *testing.T) {
	elems, err := parseNetworks("ns1/supadupanet@eth1, other", "ns2")
	require.NoError(t, err)
	assert.Equal(t, []*selectionElement{{Name: "supadupanet", Namespace: "ns1", InterfaceRequest: "eth1"}, {Name: "other", Namespace: "ns2"}}, elems)
	for _, bad := range []string{"a/b/c", "a@b@c", "Upper", "[null]"} {
		_, err := parseNetworks(bad, "ns")
		assert.Error(t, err, bad)
	}
}

func TestIPRequestsNeedASubnetOfTheirFamily(t *testing.T) {
	vmi := withIPRequests(newVMI(), `{"podnet":["fd20::1"]}`)
	_, err := interfaceIPRequests(vmi, "podnet", &netConf{Subnets: "10.0.0.0/8"})
	assert.EqualError(t, err, "no IPv6 subnet configured for IPv6 IP request: fd20::1")
	_, err = interfaceIPRequests(withIPRequests(newVMI(), `{"podnet":["nope"]}`), "podnet", &netConf{Subnets: "10.0.0.0/8"})
	assert.EqualError(t, err, "invalid IP address format: nope")
}
