package virtctl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/virtflow/virtflow/wire/launcherpod"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// writeKubeconfig points a kubeconfig at server, namespace ns.
func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: fake, cluster: {server: %q}}]
users: [{name: me, user: {token: t}}]
contexts: [{name: fake, context: {cluster: fake, user: me, namespace: ns}}]
current-context: fake
`, server)), 0o600))
	return kubeconfig
}

// exposeAgainst runs `virtctl expose args...` against an API server that
// holds objects (by path under /apis/kubevirt.io/v1/namespaces/ns/) and
// returns stdout, the Service it was asked to create and the error.
func exposeAgainst(t *testing.T, objects map[string]any, args ...string) (string, *corev1.Service, error) {
	var created *corev1.Service
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/v1/namespaces/ns/services" {
			body, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			svc := &corev1.Service{}
			require.NoError(t, json.Unmarshal(body, svc))
			if svc.Name == "taken" {
				apiStatus(w, http.StatusConflict, metav1.StatusReasonAlreadyExists)
				return
			}
			created = svc
			apiObject(w, http.StatusCreated, created)
			return
		}
		obj, ok := objects[strings.TrimPrefix(r.URL.Path, "/apis/kubevirt.io/v1/namespaces/ns/")]
		if r.Method != http.MethodGet || !ok {
			apiStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound)
			return
		}
		apiObject(w, http.StatusOK, obj)
	}))
	t.Cleanup(api.Close)
	var out bytes.Buffer
	err := Main(context.Background(), append([]string{"--kubeconfig", writeKubeconfig(t, api.URL), "expose"}, args...), &out)
	return out.String(), created, err
}

// podNetworkSpec has a pod network interface with two ports and a second
// interface whose port must not be exposed.
func podNetworkSpec() kubevirtv1.VirtualMachineInstanceSpec {
	spec := kubevirtv1.VirtualMachineInstanceSpec{Networks: []kubevirtv1.Network{
		{Name: "multus", NetworkSource: kubevirtv1.NetworkSource{Multus: &kubevirtv1.MultusNetwork{NetworkName: "br"}}},
		{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}},
	}}
	spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{
		{Name: "multus", Ports: []kubevirtv1.Port{{Port: 9999}}},
		{Name: "default", Ports: []kubevirtv1.Port{{Port: 80, Protocol: "TCP"}, {Port: 53, Protocol: "UDP"}}},
	}
	return spec
}

func TestExposeVMSelectsItsInstanceAndIsOwnedByIt(t *testing.T) {
	long := strings.Repeat("v", 70)
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Name: long, UID: "vm-uid"},
		Spec: kubevirtv1.VirtualMachineSpec{Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: podNetworkSpec()}}}
	out, svc, err := exposeAgainst(t, map[string]any{"virtualmachines/" + long: vm},
		"vm", long, "--name", "web", "--port", "8080", "--target-port", "http", "--port-name", "h", "--type", "nodeport")
	require.NoError(t, err)
	require.Equal(t, "Service web successfully created for vm "+long+"\n", out)
	require.Equal(t, "web", svc.Name)
	require.Equal(t, "ns", svc.Namespace)
	// sha1 of 70 "v"s starts fc1fb688.
	require.Equal(t, map[string]string{"vmi.kubevirt.io/id": strings.Repeat("v", 54) + "-fc1fb688"}, svc.Spec.Selector)
	require.Equal(t, []corev1.ServicePort{{Name: "h", Protocol: corev1.ProtocolTCP, Port: 8080, TargetPort: intstr.FromString("http")}}, svc.Spec.Ports)
	require.Equal(t, corev1.ServiceTypeNodePort, svc.Spec.Type)
	require.Equal(t, []metav1.OwnerReference{{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine", Name: long, UID: "vm-uid",
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false)}}, svc.OwnerReferences)
}

func TestExposeVMIWithoutPortTakesThePodNetworksPorts(t *testing.T) {
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Name: "db", UID: "vmi-uid"}, Spec: podNetworkSpec()}
	out, svc, err := exposeAgainst(t, map[string]any{"virtualmachineinstances/db": vmi},
		"VMI", "db", "--name", "db-svc", "--cluster-ip", "None", "--external-ip", "192.0.2.7", "--ip-family", "IPv6,IPv4")
	require.NoError(t, err)
	require.Equal(t, "Service db-svc successfully created for vmi db\n", out)
	require.Equal(t, map[string]string{"vmi.kubevirt.io/id": "db"}, svc.Spec.Selector)
	require.Equal(t, []corev1.ServicePort{
		{Name: "port-1", Protocol: corev1.ProtocolTCP, Port: 80},
		{Name: "port-2", Protocol: corev1.ProtocolUDP, Port: 53},
	}, svc.Spec.Ports)
	require.Equal(t, corev1.ServiceTypeClusterIP, svc.Spec.Type)
	require.Equal(t, "None", svc.Spec.ClusterIP)
	require.Equal(t, []string{"192.0.2.7"}, svc.Spec.ExternalIPs)
	require.Equal(t, []corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol}, svc.Spec.IPFamilies)
	require.Equal(t, corev1.IPFamilyPolicyPreferDualStack, *svc.Spec.IPFamilyPolicy)
	require.Equal(t, "VirtualMachineInstance", svc.OwnerReferences[0].Kind)
}

func TestExposeReplicaSetUsesItsMatchLabels(t *testing.T) {
	rs := &kubevirtv1.VirtualMachineInstanceReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "pool", UID: "rs-uid"},
		Spec: kubevirtv1.VirtualMachineInstanceReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pool"}}}}
	_, svc, err := exposeAgainst(t, map[string]any{"virtualmachineinstancereplicasets/pool": rs},
		"vmirs", "pool", "--name", "pool-svc", "--port", "22", "--protocol", "udp")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"app": "pool"}, svc.Spec.Selector)
	require.Equal(t, corev1.ProtocolUDP, svc.Spec.Ports[0].Protocol)
	require.Equal(t, "VirtualMachineInstanceReplicaSet", svc.OwnerReferences[0].Kind)
	require.Equal(t, "rs-uid", string(svc.OwnerReferences[0].UID))
}

func TestExposeRefusals(t *testing.T) {
	expr := &kubevirtv1.VirtualMachineInstanceReplicaSet{Spec: kubevirtv1.VirtualMachineInstanceReplicaSetSpec{Selector: &metav1.LabelSelector{
		MatchLabels: map[string]string{"a": "b"}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Exists"}}}}}
	objects := map[string]any{
		"virtualmachineinstancereplicasets/empty": &kubevirtv1.VirtualMachineInstanceReplicaSet{},
		"virtualmachineinstancereplicasets/expr":  expr,
		"virtualmachines/noports":                 &kubevirtv1.VirtualMachine{},
	}
	cases := map[string][]string{
		"accepts 2 arg(s), received 1":                                               {"vm", "--name", "s"},
		`required flag(s) "name" not set`:                                            {"vm", "x"},
		"unknown protocol: SCTP":                                                     {"vm", "x", "--name", "s", "--protocol", "SCTP"},
		"type: externalname not supported":                                           {"vm", "x", "--name", "s", "--type", "externalname"},
		"unknown service type: Headless":                                             {"vm", "x", "--name", "s", "--type", "Headless"},
		"unknown IPFamily/s: IPv5":                                                   {"vm", "x", "--name", "s", "--ip-family", "IPv5"},
		"unknown IPFamilyPolicy/s: Any":                                              {"vm", "x", "--name", "s", "--ip-family-policy", "Any"},
		"unsupported resource type: pod":                                             {"pod", "x", "--name", "s"},
		"error fetching VirtualMachine: NotFound":                                    {"vm", "x", "--name", "s"},
		"error fetching VirtualMachineInstance: NotFound":                            {"vmis", "x", "--name", "s"},
		"error fetching VirtualMachineInstanceReplicaSet: NotFound":                  {"vmirs", "x", "--name", "s"},
		"cannot expose VirtualMachineInstanceReplicaSet without any selector labels": {"vmirs", "empty", "--name", "s", "--port", "1"},
		"cannot expose VirtualMachineInstanceReplicaSet with match expressions":      {"vmirs", "expr", "--name", "s", "--port", "1"},
		"service creation failed: AlreadyExists":                                     {"vm", "noports", "--name", "taken", "--port", "1"},
		"couldn't find port via --port flag or introspection":                        {"vm", "noports", "--name", "s"},
	}
	for want, args := range cases {
		out, svc, err := exposeAgainst(t, objects, args...)
		require.EqualError(t, err, want, "args %v", args)
		require.Nil(t, svc, "args %v", args)
		require.Empty(t, out)
	}
}

func TestInstanceIDKeepsShortNames(t *testing.T) {
	name := strings.Repeat("a", 63)
	require.Equal(t, name, launcherpod.InstanceID(name))
	require.Len(t, launcherpod.InstanceID(name+"b"), 63)
}
