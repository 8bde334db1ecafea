package fidelity

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/podnet"
	"github.com/virtflow/virtflow/operators/kubevirt/virtadmission"
	"github.com/virtflow/virtflow/operators/kubevirt/vmi"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// leaves lists every field path of t below path: struct fields by their
// JSON names (inlined structs flattened), "[]" for a list's element. A
// Kubernetes type, a map or a scalar ends a path.
func leaves(t reflect.Type, path string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Slice:
		leaves(t.Elem(), path+"[]", out)
	case t.Kind() != reflect.Struct || strings.HasPrefix(t.PkgPath(), "k8s.io/") || t.NumField() == 0:
		// An empty struct is a switch: setting it is the field.
		*out = append(*out, path)
	default:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			switch {
			case f.Anonymous && name == "":
				leaves(f.Type, path, out)
			case name != "" && name != "-":
				leaves(f.Type, path+"."+name, out)
			}
		}
	}
}

// specFields are the VMI spec's field paths, sorted.
func specFields() []string {
	var out []string
	leaves(reflect.TypeOf(kubevirtv1.VirtualMachineInstanceSpec{}), "spec", &out)
	sort.Strings(out)
	return out
}

// baseVMI is admitted and builds: a container disk, the pod network.
func baseVMI() *kubevirtv1.VirtualMachineInstance {
	guest := resource.MustParse("128Mi")
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "vm1", UID: "6a1c5f4e-0000-4000-8000-000000000001"},
		Spec: kubevirtv1.VirtualMachineInstanceSpec{
			Architecture: "amd64",
			Domain: kubevirtv1.DomainSpec{
				Memory: &kubevirtv1.Memory{Guest: &guest},
				Devices: kubevirtv1.Devices{
					Disks:      []kubevirtv1.Disk{{Name: "root"}},
					Interfaces: []kubevirtv1.Interface{{Name: "default", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}}}},
				},
			},
			Networks: []kubevirtv1.Network{{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}},
			Volumes: []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{
				ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "registry.example/guest:1"},
			}}},
		},
	}
}

// domainXML builds the VMI's domain as a node would, every volume a file.
func domainXML(v *kubevirtv1.VirtualMachineInstance) (string, error) {
	sources := map[string]domain.Source{}
	for _, vol := range v.Spec.Volumes {
		sources[vol.Name] = domain.Source{Path: "/var/run/kubevirt/disks/" + vol.Name + ".img", Format: "raw"}
	}
	var kernel string
	if fw := v.Spec.Domain.Firmware; fw != nil && fw.KernelBoot != nil && fw.KernelBoot.Container != nil {
		kernel = "/var/run/kubevirt/kernel-boot/vmlinuz"
	}
	var plan podnet.Plan
	for _, i := range v.Spec.Domain.Devices.Interfaces {
		plan.Interfaces = append(plan.Interfaces, podnet.Interface{Name: i.Name, Binding: podnet.Masquerade, Tap: "tap-" + i.Name})
	}
	return domain.BuildXML(domain.Input{VMI: v, Type: domain.KVM, Sources: sources, Network: plan, Kernel: kernel,
		SerialLog: "/run/vmi/serial.log", VNCSocket: "/run/vmi/vnc.sock", AgentSocket: "/run/vmi/agent.sock",
		Firmware: domain.DebianOVMF, NVRAMDir: "/run/vmi/nvram", CPUSet: []int{4, 5, 6, 7, 8, 9}})
}

func podJSON(t *testing.T, v *kubevirtv1.VirtualMachineInstance) string {
	pod, err := vmi.LauncherPod(v)
	require.NoError(t, err)
	out, err := json.Marshal(pod)
	require.NoError(t, err)
	return string(out)
}

func causes(v *kubevirtv1.VirtualMachineInstance) string {
	var msgs []string
	for _, c := range virtadmission.ValidateVMICreate(v) {
		msgs = append(msgs, c.Field+": "+c.Message)
	}
	return strings.Join(msgs, "\n")
}

// TestEveryVMISpecFieldIsHonouredOrRefused sets each field of the VMI
// spec on an admitted VMI and checks what its entry in fields says: the
// domain or the launcher pod changes as named, virt-api refuses with the
// named message, the node refuses to build the domain, or a named test of
// the part that acts on the field exists. A field without an entry fails.
func TestEveryVMISpecFieldIsHonouredOrRefused(t *testing.T) {
	require.Empty(t, causes(baseVMI()), "the base VMI is admitted")
	tests := testNames(t)
	built := t.TempDir()
	var missing []string
	for _, path := range specFields() {
		f, ok := fields[path]
		if !ok {
			missing = append(missing, path)
			continue
		}
		t.Run(path, func(t *testing.T) {
			if f.how == byTest {
				require.True(t, tests[f.want], "no test named %s", f.want)
				return
			}
			// The baseline has what the field needs, not the field.
			base, v := prepared(f), prepared(f)
			set(t, reflect.ValueOf(&v.Spec).Elem(), strings.Split(strings.TrimPrefix(path, "spec."), "."), f.value)
			// What virt-api's mutating webhook adds, as a stored VMI has it.
			virtadmission.SetVMIDefaults(&base.Spec)
			virtadmission.SetVMIDefaults(&v.Spec)
			check(t, f, base, v, tests)
			if f.how == inDomain {
				keep(t, built, path, v)
			}
		})
	}
	validateSchema(t, built)
	require.Empty(t, missing, "fields with no entry in fields: each must be honoured or refused")
	for path := range fields {
		require.Contains(t, specFields(), path, "fields names a path the VMI spec does not have")
	}
}

func prepared(f field) *kubevirtv1.VirtualMachineInstance {
	v := baseVMI()
	if f.prep != nil {
		f.prep(v)
	}
	return v
}

func check(t *testing.T, f field, base, v *kubevirtv1.VirtualMachineInstance, tests map[string]bool) {
	switch f.how {
	case refused:
		require.NotContains(t, causes(base), f.want, "the baseline is refused for it already")
		require.Contains(t, causes(v), f.want)
	case atNode:
		require.Empty(t, causes(v))
		if _, err := domainXML(base); err != nil {
			require.NotContains(t, err.Error(), f.want, "the baseline fails for it already")
		}
		_, err := domainXML(v)
		require.ErrorContains(t, err, f.want)
	case inDomain:
		require.Empty(t, causes(v))
		baseXML, err := domainXML(base)
		require.NoError(t, err)
		xml, err := domainXML(v)
		require.NoError(t, err)
		shows(t, f, baseXML, xml)
	case inPod:
		require.Empty(t, causes(v))
		shows(t, f, podJSON(t, base), podJSON(t, v))
	default:
		t.Fatalf("entry without an outcome")
	}
}

// shows checks that got has want where base has not, or for a field
// that takes something away, the other way round.
func shows(t *testing.T, f field, base, got string) {
	if f.gone {
		require.Contains(t, base, f.want, "the base lacks what the field should take away")
		require.NotContains(t, got, f.want)
		return
	}
	require.NotContains(t, base, f.want, "the base already shows it")
	require.Contains(t, got, f.want)
}

// keep writes the domain a field produced, for the schema check.
func keep(t *testing.T, dir, path string, v *kubevirtv1.VirtualMachineInstance) {
	xml, err := domainXML(v)
	require.NoError(t, err)
	name := strings.NewReplacer("[]", "", ".", "_").Replace(path) + ".xml"
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(xml), 0o644))
}

// domainSchema is the launcher's libvirt's own domain schema (Debian's
// libvirt0): libvirt ignores elements and attributes it does not know, so
// a domain that does not validate would lose what the field asked for.
const domainSchema = "/usr/share/libvirt/schemas/domain.rng"

// validateSchema checks every domain a field produced against the schema
// of the libvirt the launcher runs, then with its parser (hack/install.sh
// installs libvirt's clients and xmllint).
func validateSchema(t *testing.T, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out, err := exec.Command("xmllint", append([]string{"--noout", "--relaxng", domainSchema}, files...)...).CombinedOutput()
	require.NoError(t, err, "domains that libvirt 9.0's schema refuses:\n%s", out)
	// The schema leaves to libvirt's parser what it wants together
	// (spinlocks' retries, a vendor ID's value): its test driver defines
	// each domain as the launcher's libvirt would.
	for _, f := range files {
		out, err := exec.Command("virsh", "-q", "-c", "test:///default", "define", f).CombinedOutput()
		require.NoError(t, err, "libvirt refuses %s: %s", filepath.Base(f), out)
	}
}

// testNames are the names of the repository's test functions.
func testNames(t *testing.T) map[string]bool {
	names := map[string]bool{}
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		src, err := os.ReadFile(p)
		for _, m := range re.FindAllSubmatch(src, -1) {
			names[string(m[1])] = true
		}
		return err
	})
	require.NoError(t, err)
	return names
}
