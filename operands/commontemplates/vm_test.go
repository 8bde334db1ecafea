package commontemplates

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// decodeVM decodes a template's object strictly: an unknown field would
// mean the object is not a VirtualMachine as KubeVirt defines it.
func decodeVM(t *testing.T, tp templatev1.Template) *kubevirtv1.VirtualMachine {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(tp.Objects[0].Raw))
	dec.DisallowUnknownFields()
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, dec.Decode(vm), tp.Name)
	require.Equal(t, "kubevirt.io/v1", vm.APIVersion, tp.Name)
	require.Equal(t, "VirtualMachine", vm.Kind, tp.Name)
	return vm
}

// TestEveryVMHasItsFlavorsCPUAndMemory checks the sizes of every VM against
// the matrix.
func TestEveryVMHasItsFlavorsCPUAndMemory(t *testing.T) {
	got := byName(Templates(Options{}))
	for name, e := range expectedTemplates(allCases()) {
		vm := decodeVM(t, got[name])
		d := vm.Spec.Template.Spec.Domain
		wantSockets := uint32(1)
		if e.flavor == "large" {
			wantSockets = 2
		}
		wantCores := uint32(1)
		if e.c.os == "windows11" {
			wantCores = 2
		}
		require.Equal(t, wantSockets, d.CPU.Sockets, name)
		require.Equal(t, wantCores, d.CPU.Cores, name)
		require.Equal(t, uint32(1), d.CPU.Threads, name)
		require.Zero(t, d.Memory.Guest.Cmp(resource.MustParse(e.c.memory[e.flavor])), "%s: memory %s", name, d.Memory.Guest)
		hp := e.workload == "highperformance"
		require.Equal(t, hp, d.CPU.DedicatedCPUPlacement, name)
		require.Equal(t, hp, d.CPU.IsolateEmulatorThread, name)
	}
}

// TestEveryVMClonesItsDataSourceAndStaysHalted checks the VM metadata, the
// DataVolume clone and the run strategy of every template.
func TestEveryVMClonesItsDataSourceAndStaysHalted(t *testing.T) {
	got := byName(Templates(Options{}))
	for name, e := range expectedTemplates(allCases()) {
		vm := decodeVM(t, got[name])
		require.Equal(t, "${NAME}", vm.Name, name)
		require.Equal(t, map[string]string{
			"vm.kubevirt.io/template": name, "vm.kubevirt.io/template.version": "v0.34.1",
			"vm.kubevirt.io/template.revision": "1", "app": "${NAME}",
		}, vm.Labels, name)
		require.Equal(t, kubevirtv1.RunStrategyHalted, *vm.Spec.RunStrategy, name)
		require.Len(t, vm.Spec.DataVolumeTemplates, 1, name)
		dv := vm.Spec.DataVolumeTemplates[0]
		require.Equal(t, "cdi.kubevirt.io/v1beta1", dv.APIVersion, name)
		require.Equal(t, "DataVolume", dv.Kind, name)
		require.Equal(t, "${NAME}", dv.Name, name)
		require.Equal(t, "DataSource", dv.Spec.SourceRef.Kind, name)
		require.Equal(t, "${DATA_SOURCE_NAME}", dv.Spec.SourceRef.Name, name)
		require.Equal(t, "${DATA_SOURCE_NAMESPACE}", *dv.Spec.SourceRef.Namespace, name)
		size := dv.Spec.Storage.Resources.Requests["storage"]
		require.Zero(t, size.Cmp(resource.MustParse(e.c.storage)), "%s: size %s", name, size.String())
		spec := vm.Spec.Template.Spec
		require.Equal(t, "rootdisk", spec.Volumes[0].Name, name)
		require.Equal(t, "${NAME}", spec.Volumes[0].DataVolume.Name, name)
		require.Equal(t, "rootdisk", spec.Domain.Devices.Disks[0].Name, name)
		require.Equal(t, "amd64", spec.Architecture, name)
		require.Equal(t, map[string]string{
			"vm.kubevirt.io/os": e.c.os, "vm.kubevirt.io/workload": e.workload, "vm.kubevirt.io/flavor": e.flavor,
		}, vm.Spec.Template.ObjectMeta.Annotations, name)
		require.Equal(t, map[string]string{"kubevirt.io/domain": "${NAME}", "kubevirt.io/size": e.flavor},
			vm.Spec.Template.ObjectMeta.Labels, name)
	}
}

// validationRule is the template validator's rule grammar.
type validationRule struct {
	Name        string   `json:"name"`
	Path        string   `json:"path"`
	Valid       string   `json:"valid"`
	Rule        string   `json:"rule"`
	Message     string   `json:"message"`
	Min         *int64   `json:"min"`
	Values      []string `json:"values"`
	JustWarning bool     `json:"justWarning"`
}

// TestValidationsParseAsRules checks the validation annotation of every VM
// against the validator's grammar and the OS's minimums.
func TestValidationsParseAsRules(t *testing.T) {
	got := byName(Templates(Options{}))
	for name, e := range expectedTemplates(allCases()) {
		vm := decodeVM(t, got[name])
		dec := json.NewDecoder(bytes.NewReader([]byte(vm.Annotations["vm.kubevirt.io/validations"])))
		dec.DisallowUnknownFields()
		var rules []validationRule
		require.NoError(t, dec.Decode(&rules), name)
		require.Equal(t, "minimal-required-memory", rules[0].Name, name)
		require.Equal(t, "jsonpath::.spec.domain.memory.guest", rules[0].Path, name)
		require.Equal(t, "integer", rules[0].Rule, name)
		require.Equal(t, e.c.minMemory, *rules[0].Min, name)
		mem := resource.MustParse(e.c.memory[e.flavor])
		require.GreaterOrEqual(t, mem.Value(), *rules[0].Min, "%s: its own memory passes its rule", name)
		var names []string
		for _, r := range rules {
			names = append(names, r.Name)
			require.Regexp(t, `^jsonpath::\.spec\.`, r.Path, name)
			require.Contains(t, []string{"integer", "enum"}, r.Rule, name)
			require.NotEmpty(t, r.Message, name)
		}
		switch {
		case e.c.os == "windows11":
			require.Equal(t, []string{"minimal-required-memory", "windows-virtio-bus", "windows-disk-bus", "windows-cd-bus", "minimal-required-cores"}, names, name)
			require.Equal(t, int64(2), *rules[4].Min, name)
		case e.c.windows:
			require.Equal(t, []string{"minimal-required-memory", "windows-virtio-bus", "windows-disk-bus", "windows-cd-bus"}, names, name)
			require.True(t, rules[1].JustWarning, name)
			require.Equal(t, []string{"virtio", "sata", "scsi"}, rules[2].Values, name)
			require.Equal(t, []string{"sata"}, rules[3].Values, name)
		default:
			require.Equal(t, []string{"minimal-required-memory"}, names, name)
		}
	}
}

var paramRef = regexp.MustCompile(`\$\{([A-Z_]+)\}`)

// TestEveryReferencedParameterIsDeclared matters because processing a
// template leaves an undeclared ${X} in place.
func TestEveryReferencedParameterIsDeclared(t *testing.T) {
	for _, tp := range Templates(Options{}) {
		declared := map[string]bool{}
		for _, p := range tp.Parameters {
			declared[p.Name] = true
		}
		used := map[string]bool{}
		for _, m := range paramRef.FindAllStringSubmatch(string(tp.Objects[0].Raw), -1) {
			require.True(t, declared[m[1]], "%s uses undeclared %s", tp.Name, m[1])
			used[m[1]] = true
		}
		for p := range declared {
			require.True(t, used[p], "%s declares unused %s", tp.Name, p)
		}
	}
}

// TestObjectsCarryNoEmptyNoise checks that encoding dropped what upstream's
// objects do not have.
func TestObjectsCarryNoEmptyNoise(t *testing.T) {
	for _, tp := range Templates(Options{}) {
		raw := string(tp.Objects[0].Raw)
		require.NotContains(t, raw, "null", tp.Name)
		require.NotContains(t, raw, `"status":{}`, tp.Name)
		require.NotContains(t, raw, `"resources":{}`, tp.Name)
	}
}
