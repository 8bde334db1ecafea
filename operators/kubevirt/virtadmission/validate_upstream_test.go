package virtadmission

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// upstreamCase is one line of testdata/upstream_admission.jsonl: an object
// and the causes KubeVirt v1.8.4's admitters return for it, configured as
// HCO deploys KubeVirt by default. Kind says what is validated: "spec" a
// VMI spec, "mandatory" the VMI-only checks (after upstream's Hyper-V
// defaults), "vmicreate" a whole VMI, "vm" a VM spec.
type upstreamCase struct {
	Name   string               `json:"name"`
	Kind   string               `json:"kind"`
	Obj    json.RawMessage      `json:"obj"`
	Causes []metav1.StatusCause `json:"causes"`
}

func (c upstreamCase) ours(t *testing.T) []metav1.StatusCause {
	f := field.NewPath("spec")
	switch c.Kind {
	case "spec", "mandatory":
		s := &kubevirtv1.VirtualMachineInstanceSpec{}
		require.NoError(t, json.Unmarshal(c.Obj, s))
		if c.Kind == "spec" {
			return ValidateVMISpec(f, s)
		}
		return ValidateVMIMandatory(f, s)
	case "vmicreate":
		vmi := &kubevirtv1.VirtualMachineInstance{}
		require.NoError(t, json.Unmarshal(c.Obj, vmi))
		return ValidateVMICreate(vmi)
	case "vm":
		vm := &kubevirtv1.VirtualMachineSpec{}
		require.NoError(t, json.Unmarshal(c.Obj, vm))
		return ValidateVMSpec(vm)
	}
	t.Fatalf("unknown kind %q", c.Kind)
	return nil
}

// upstreamsOnly leaves out virtflow's own refusals of what upstream
// accepts and virtflow cannot do yet (validateNotYet); the field-coverage
// test checks those.
func upstreamsOnly(causes []metav1.StatusCause) []metav1.StatusCause {
	var out []metav1.StatusCause
	for _, c := range causes {
		if !NotYet(c) {
			out = append(out, c)
		}
	}
	return out
}

func TestCausesMatchUpstreams(t *testing.T) {
	file, err := os.Open("testdata/upstream_admission.jsonl")
	require.NoError(t, err)
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	n := 0
	for sc.Scan() {
		var c upstreamCase
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		n++
		t.Run(c.Name, func(t *testing.T) {
			got := upstreamsOnly(c.ours(t))
			if len(c.Causes) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, c.Causes, got)
		})
	}
	require.NoError(t, sc.Err())
	require.Greater(t, n, 150)
}
