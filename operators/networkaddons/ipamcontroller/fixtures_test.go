package ipamcontroller

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

// The fixtures are upstream's test ones: VM vm1 in ns1 on the pod network
// "podnet" and the secondary network "randomnet" of NAD ns1/supadupanet.
const (
	testNS  = "ns1"
	testVM  = "vm1"
	testNAD = "ns1/supadupanet"
)

func newClient(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
}

func vmiSpec() kubevirtv1.VirtualMachineInstanceSpec {
	return kubevirtv1.VirtualMachineInstanceSpec{
		Domain: kubevirtv1.DomainSpec{Devices: kubevirtv1.Devices{Interfaces: []kubevirtv1.Interface{{Name: "podnet"}}}},
		Networks: []kubevirtv1.Network{
			{Name: "podnet", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}},
			{Name: "randomnet", NetworkSource: kubevirtv1.NetworkSource{Multus: &kubevirtv1.MultusNetwork{NetworkName: testNAD}}},
		},
	}
}

func newVM() *kubevirtv1.VirtualMachine {
	return &kubevirtv1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: testVM, UID: "vm-uid"},
		Spec:       kubevirtv1.VirtualMachineSpec{Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: vmiSpec()}},
	}
}

func newVMI() *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: testVM, UID: "vmi-uid"},
		Spec:       vmiSpec(),
	}
}

// nad is a NetworkAttachmentDefinition "namespace/name" of config.
func nad(key, config string) *unstructured.Unstructured {
	ns, name, _ := strings.Cut(key, "/")
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(NADKind)
	u.SetNamespace(ns)
	u.SetName(name)
	_ = unstructured.SetNestedField(u.Object, config, "spec", "config")
	return u
}

func persistentNAD() *unstructured.Unstructured {
	return nad(testNAD, `{"name": "goodnet", "allowPersistentIPs": true}`)
}

func primaryNAD() *unstructured.Unstructured {
	return nad(testNAD+"primary", `{"name": "primarynet", "role": "primary", "allowPersistentIPs": true,
		"subnets": "192.168.0.0/16,fd12:1234::123/64"}`)
}
