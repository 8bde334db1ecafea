package virtapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/version"
	"github.com/virtflow/virtflow/wire/guestfspod"
)

// fakeAgent is a node agent that records the commands it gets and
// answers guestinfo with info.
type fakeAgent struct {
	mu   sync.Mutex
	got  []string
	info kubevirtv1.VirtualMachineInstanceGuestAgentInfo
}

func (a *fakeAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer t0ken" {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	verb := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	if r.Method == http.MethodGet && verb == "guestinfo" {
		_ = json.NewEncoder(w).Encode(a.info)
		return
	}
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	a.got = append(a.got, strings.TrimSpace(verb+" "+string(body)))
	a.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// apiWith serves virt-api's subresources over objs, with a VMI "vm" on
// node1 whose agent is agent.
func apiWith(t *testing.T, agent http.Handler, objs ...client.Object) *httptest.Server {
	node := httptest.NewServer(agent)
	t.Cleanup(node.Close)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "install", Name: "token-node1"}, Data: map[string][]byte{
		"token": []byte("t0ken"), "address": []byte(node.Listener.Addr().String()),
	}}
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(append(objs, secret)...).Build()
	s := &Server{Actions: &Actions{Client: c}, Reader: c, Version: version.Get(),
		Nodes: &NodeAgents{Client: c, Namespace: "install", TokenSecret: func(n string) string { return "token-" + n }}}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv
}

func runningVMI(conds ...kubevirtv1.VirtualMachineInstanceConditionType) *kubevirtv1.VirtualMachineInstance {
	v := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: kubevirtv1.Running, NodeName: "node1"}}
	for _, c := range conds {
		v.Status.Conditions = append(v.Status.Conditions, kubevirtv1.VirtualMachineInstanceCondition{Type: c, Status: corev1.ConditionTrue})
	}
	return v
}

// sizedVM is a VM "vm" in ns that names the instancetype u1.small and
// sets no memory of its own, changed by mutate.
func sizedVM(mutate func(*kubevirtv1.VirtualMachineInstanceSpec, *kubevirtv1.VirtualMachine)) *kubevirtv1.VirtualMachine {
	always := kubevirtv1.RunStrategyAlways
	spec := kubevirtv1.VirtualMachineInstanceSpec{
		Domain: kubevirtv1.DomainSpec{Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{Name: "root"}}}},
		Volumes: []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{
			ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "virtflow/test-guest"}}}},
	}
	vm := &kubevirtv1.VirtualMachine{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"},
		Spec: kubevirtv1.VirtualMachineSpec{RunStrategy: &always, Instancetype: &kubevirtv1.InstancetypeMatcher{Name: "u1.small"},
			Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: spec}},
	}
	if mutate != nil {
		mutate(&vm.Spec.Template.Spec, vm)
	}
	return vm
}

// call makes a request and returns the status code and body.
func call(t *testing.T, srv *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+"/apis/subresources.kubevirt.io/v1/"+path, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(out)
}

// statusMessage is the message of a metav1.Status body.
func statusMessage(t *testing.T, body string) string {
	t.Helper()
	var st metav1.Status
	require.NoError(t, json.Unmarshal([]byte(body), &st), body)
	require.Equal(t, "Status", st.Kind)
	return st.Message
}

const vmiPath = "namespaces/ns/virtualmachineinstances/vm/"

func TestVMICommandsReachTheLauncherAfterUpstreamsChecks(t *testing.T) {
	agent := &fakeAgent{}
	srv := apiWith(t, agent, runningVMI(kubevirtv1.VirtualMachineInstanceAgentConnected))
	for _, verb := range []string{"softreboot", "reset", "pause", "unfreeze"} {
		code, body := call(t, srv, http.MethodPut, vmiPath+verb, "")
		require.Equal(t, http.StatusOK, code, "%s: %s", verb, body)
	}
	code, _ := call(t, srv, http.MethodPut, vmiPath+"freeze", `{"unfreezeTimeout":"5m0s"}`)
	require.Equal(t, http.StatusOK, code)
	code, _ = call(t, srv, http.MethodPut, vmiPath+"pause", `{"dryRun":["All"]}`)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, []string{"softreboot", "reset", "pause", "unfreeze", `freeze {"unfreezeTimeout":"5m0s"}`}, agent.got,
		"a dry run reaches no launcher")
}

func TestVMICommandsRefusedInUpstreamsWords(t *testing.T) {
	stopped := runningVMI()
	stopped.Status.Phase = kubevirtv1.Succeeded
	pausedVMI := runningVMI(kubevirtv1.VirtualMachineInstancePaused)
	no := false
	noACPI := runningVMI()
	noACPI.Spec.Domain.Features = &kubevirtv1.Features{ACPI: kubevirtv1.FeatureState{Enabled: &no}}
	prefix := `Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "vm": `
	cases := []struct {
		vmi        *kubevirtv1.VirtualMachineInstance
		verb, body string
		code       int
		msg        string
	}{
		{stopped, "softreboot", "", 409, prefix + "VM is not running"},
		{pausedVMI, "softreboot", "", 409, prefix + "VMI is paused"},
		{noACPI, "softreboot", "", 409, prefix + "VMI neither have the agent connected nor the ACPI feature enabled"},
		{stopped, "reset", "", 400, "Failed to reset non-running VMI with phase Succeeded: Unable to connect to VirtualMachineInstance because phase is Succeeded instead of Running or Scheduled"},
		{stopped, "freeze", `{"unfreezeTimeout":"1m"}`, 409, prefix + "VM is not running"},
		{runningVMI(), "freeze", "", 500, "Internal error occurred: unexpected return code 400 (400 Bad Request), message: Unfreeze timeout in freeze request is not set"},
		{stopped, "unfreeze", "", 409, prefix + "VMI is not running"},
		{stopped, "pause", "", 409, prefix + "VM is not running"},
		{pausedVMI, "pause", "", 409, prefix + "VMI is already paused"},
		{runningVMI(), "unpause", "", 409, prefix + "VMI is not paused"},
		{runningVMI(), "pause", "{", 400, "Can not unmarshal Request body to struct, error: unexpected end of JSON input"},
	}
	for _, c := range cases {
		agent := &fakeAgent{}
		code, body := call(t, apiWith(t, agent, c.vmi), http.MethodPut, vmiPath+c.verb, c.body)
		require.Equal(t, c.code, code, "%s: %s", c.verb, body)
		require.Equal(t, c.msg, statusMessage(t, body), c.verb)
		require.Empty(t, agent.got, "%s must not reach the launcher", c.verb)
	}
	code, body := call(t, apiWith(t, &fakeAgent{}), http.MethodPut, vmiPath+"softreboot", "")
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, `virtualmachineinstance.kubevirt.io "vm" not found`, statusMessage(t, body))
}

func TestGuestListsComeFromTheAgentAndFailAsPlainText(t *testing.T) {
	agent := &fakeAgent{info: kubevirtv1.VirtualMachineInstanceGuestAgentInfo{Hostname: "guest1",
		OS:       kubevirtv1.VirtualMachineInstanceGuestOSInfo{ID: "virtflow-test-guest"},
		UserList: []kubevirtv1.VirtualMachineInstanceGuestOSUser{{UserName: "root", LoginTime: 1700000000}},
		FSInfo: kubevirtv1.VirtualMachineInstanceFileSystemInfo{Filesystems: []kubevirtv1.VirtualMachineInstanceFileSystem{
			{DiskName: "vda", MountPoint: "/mnt", FileSystemType: "ext2", TotalBytes: 8 << 20}}}}}
	srv := apiWith(t, agent, runningVMI(kubevirtv1.VirtualMachineInstanceAgentConnected))
	code, body := call(t, srv, http.MethodGet, vmiPath+"userlist", "")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"metadata":{},"items":[{"userName":"root","loginTime":1700000000}]}`, body)
	code, body = call(t, srv, http.MethodGet, vmiPath+"filesystemlist", "")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"metadata":{},"items":[{"diskName":"vda","mountPoint":"/mnt","fileSystemType":"ext2","usedBytes":0,"totalBytes":8388608}]}`, body)
	code, body = call(t, srv, http.MethodGet, vmiPath+"guestosinfo", "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"hostname":"guest1"`)

	stopped := runningVMI(kubevirtv1.VirtualMachineInstanceAgentConnected)
	stopped.Status.Phase = kubevirtv1.Succeeded
	for want, vmi := range map[string]*kubevirtv1.VirtualMachineInstance{
		`Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "vm": VMI does not have guest agent connected`: runningVMI(),
		`Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "vm": VMI is not running`:                      stopped,
	} {
		for _, sub := range []string{"guestosinfo", "userlist", "filesystemlist"} {
			code, body := call(t, apiWith(t, &fakeAgent{}, vmi), http.MethodGet, vmiPath+sub, "")
			require.Equal(t, http.StatusInternalServerError, code, "upstream answers these with a plain 500")
			require.Equal(t, want, strings.TrimSpace(body))
		}
	}
}

func TestSubresourcesNotBuiltYetSaySo(t *testing.T) {
	srv := apiWith(t, &fakeAgent{})
	for _, c := range []struct{ method, path, what string }{
		{http.MethodPut, "namespaces/ns/virtualmachines/vm/removememorydump", "virtualmachines/removememorydump"},
		{http.MethodPut, "namespaces/ns/virtualmachines/vm/memorydump", "virtualmachines/memorydump"},
		{http.MethodPut, vmiPath + "addvolume", "virtualmachineinstances/addvolume"},
		{http.MethodGet, vmiPath + "usbredir", "virtualmachineinstances/usbredir"},
	} {
		code, body := call(t, srv, c.method, c.path, "")
		require.Equal(t, http.StatusNotImplemented, code, c.path)
		require.Equal(t, c.what+" is not supported yet by this virtflow release", statusMessage(t, body))
	}
}

// virtctl guestfs composes "<registry>/<imagePrefix>libguestfs-tools:<tag>"
// from the answer: the image the node imported.
func TestGuestfsNamesTheImportedImageInUpstreamsParts(t *testing.T) {
	code, body := call(t, apiWith(t, &fakeAgent{}), http.MethodGet, "guestfs", "")
	require.Equal(t, http.StatusOK, code)
	var info map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &info))
	require.Equal(t, guestfspod.Image, info["registry"]+"/"+info["imagePrefix"]+"libguestfs-tools:"+info["tag"])
	require.Empty(t, info["gsImage"])
	require.Empty(t, info["digest"])
}

func TestVersionIsUpstreamsDocument(t *testing.T) {
	code, body := call(t, apiWith(t, &fakeAgent{}), http.MethodGet, "version", "")
	require.Equal(t, http.StatusOK, code)
	var v map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &v))
	for _, k := range []string{"gitVersion", "gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"} {
		require.Contains(t, v, k)
	}
	require.NotEmpty(t, v["gitVersion"])
	require.Equal(t, "gc", v["compiler"])
}

func TestExpandSpecAppliesTheInstancetype(t *testing.T) {
	it := &v1beta1.VirtualMachineClusterInstancetype{ObjectMeta: metav1.ObjectMeta{Name: "u1.small"},
		Spec: v1beta1.VirtualMachineInstancetypeSpec{CPU: v1beta1.CPUInstancetype{Guest: 2}, Memory: v1beta1.MemoryInstancetype{Guest: resource.MustParse("1Gi")}}}
	vm := sizedVM(nil)
	srv := apiWith(t, &fakeAgent{}, it, vm)
	code, body := call(t, srv, http.MethodGet, "namespaces/ns/virtualmachines/vm/expand-spec", "")
	require.Equal(t, http.StatusOK, code, body)
	got := &kubevirtv1.VirtualMachine{}
	require.NoError(t, json.Unmarshal([]byte(body), got))
	require.Nil(t, got.Spec.Instancetype, "the matcher goes")
	require.Equal(t, uint32(2), got.Spec.Template.Spec.Domain.CPU.Sockets)
	require.Equal(t, "1Gi", got.Spec.Template.Spec.Domain.Memory.Guest.String())

	raw, _ := json.Marshal(sizedVM(func(_ *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) { vm.Namespace = "other" }))
	code, body = call(t, srv, http.MethodPut, "namespaces/ns/expand-vm-spec", string(raw))
	require.Equal(t, http.StatusBadRequest, code)
	require.Equal(t, "VM namespace must be empty or ns", statusMessage(t, body))
	clash, _ := json.Marshal(sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, _ *kubevirtv1.VirtualMachine) {
		s.Domain.CPU = &kubevirtv1.CPU{Sockets: 1}
	}))
	code, body = call(t, srv, http.MethodPut, "namespaces/ns/expand-vm-spec", string(clash))
	require.Equal(t, http.StatusBadRequest, code)
	require.Equal(t, "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type", statusMessage(t, body))
	code, body = call(t, srv, http.MethodGet, "namespaces/ns/virtualmachines/missing/expand-spec", "")
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, `virtualmachine.kubevirt.io "missing" not found`, statusMessage(t, body))
}

func TestObjectGraphFollowsUpstream(t *testing.T) {
	vm := sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
		vm.Spec.Instancetype.Kind = "VirtualMachineClusterInstancetype"
		s.Volumes = []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "root-dv"}}}}
		vm.Status.Created = true
	})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "virt-launcher-vm-abcde",
		Labels: map[string]string{kubevirtv1.AppLabel: "virt-launcher"}, OwnerReferences: []metav1.OwnerReference{{Kind: "VirtualMachineInstance", Name: "vm", APIVersion: "kubevirt.io/v1", UID: "u"}}}}
	srv := apiWith(t, &fakeAgent{}, vm, pod)
	code, body := call(t, srv, http.MethodGet, "namespaces/ns/virtualmachines/vm/objectgraph", "")
	require.Equal(t, http.StatusOK, code, body)
	var g kubevirtv1.ObjectGraphNode
	require.NoError(t, json.Unmarshal([]byte(body), &g))
	require.Equal(t, "VirtualMachine", g.ObjectReference.Kind)
	kinds := []string{}
	for _, c := range g.Children {
		kinds = append(kinds, c.ObjectReference.Kind+"/"+c.ObjectReference.Name)
	}
	require.Equal(t, []string{"VirtualMachineInstance/vm", "VirtualMachineClusterInstancetype/u1.small", "DataVolume/root-dv"}, kinds)
	require.Equal(t, "Pod", g.Children[0].Children[0].ObjectReference.Kind)
	require.Equal(t, "PersistentVolumeClaim", g.Children[2].Children[0].ObjectReference.Kind)
	require.Equal(t, "storage", g.Children[2].Labels[dependencyLabel])

	code, body = call(t, srv, http.MethodGet, "namespaces/ns/virtualmachines/vm/objectgraph", `{"includeOptionalNodes":false,"labelSelector":{"matchLabels":{"kubevirt.io/dependency-type":"storage"}}}`)
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &g))
	require.Len(t, g.Children, 1, "only storage, no optional instancetype")
	require.Equal(t, "DataVolume", g.Children[0].ObjectReference.Kind)
}

func TestGatedOffSubresourcesAnswerAsUpstreamWithTheirGateOff(t *testing.T) {
	srv := apiWith(t, &fakeAgent{})
	code, body := call(t, srv, http.MethodGet, vmiPath+"sev/fetchcertchain", "")
	require.Equal(t, http.StatusBadRequest, code)
	require.Equal(t, "'WorkloadEncryptionSEV' feature gate is not enabled", statusMessage(t, body))
	code, body = call(t, srv, http.MethodGet, "dump-cluster-profiler", "")
	require.Equal(t, http.StatusForbidden, code)
	require.Equal(t, `Unable to dump profiler results. "ClusterProfiler" feature gate must be enabled`, body)
}
