package layout

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/virtflow/virtflow/"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// list runs go list over the module and the given extra packages.
func list(t *testing.T, extra ...string) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-tags", "integration bench", "-json=ImportPath,Imports,Deps", "github.com/virtflow/virtflow/..."}, extra...)...)
	cmd.Dir = ".."
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs[p.ImportPath] = p
	}
	require.NoError(t, cmd.Wait(), stderr.String())
	return pkgs
}

func own(path string) (string, bool) { return strings.CutPrefix(path, module) }

// under reports whether an own package path lies in one of the folders.
func under(rel string, dirs ...string) bool {
	for _, f := range dirs {
		if rel == f || strings.HasPrefix(rel, f+"/") {
			return true
		}
	}
	return false
}

// TestDependenciesPointOneWay checks every own package's direct imports
// against the place of the folder it lives in: no operator imports an
// activity or a workflow implementation, workflows import contracts and api
// only, and operators and node do not import each other. The integration
// and benchmark packages are listed with their build tags, so nothing is
// skipped.
func TestDependenciesPointOneWay(t *testing.T) {
	for path, p := range list(t) {
		rel, _ := own(path)
		folder := strings.SplitN(rel, "/", 2)[0]
		_, placed := folders[folder]
		require.True(t, placed, "%s is in folder %s/, which layout/folders_test.go does not place", rel, folder)
		for _, imp := range p.Imports {
			if dep, ok := own(imp); ok {
				depFolder := strings.SplitN(dep, "/", 2)[0]
				require.True(t, may(folder, depFolder), "%s imports %s: %s/ may import only %v", rel, dep, folder, folders[folder].imports)
			}
		}
	}
}

// forbidden are what a workflow or a contract must never depend on: the
// Kubernetes clients, HTTP, processes, libvirt, registries.
var forbidden = []string{
	"k8s.io/client-go", "sigs.k8s.io/controller-runtime", "net/http", "os/exec",
	"libvirt.org/", "github.com/google/go-containerregistry",
}

// TestWorkflowsAndContractsAreFreeOfSideEffects checks the dependency
// closure of every workflow and contract package. The Temporal SDK itself
// depends on net/http (its gRPC client) and the test helpers on testify,
// so what those bring in is subtracted: the check is on what virtflow's
// code adds.
func TestWorkflowsAndContractsAreFreeOfSideEffects(t *testing.T) {
	sdk := []string{
		"go.temporal.io/sdk/workflow", "go.temporal.io/sdk/temporal", "go.temporal.io/sdk/activity",
		"go.temporal.io/sdk/worker", "go.temporal.io/sdk/client", "github.com/stretchr/testify/require",
	}
	pkgs := list(t, sdk...)
	excused := map[string]bool{}
	for _, s := range sdk {
		excused[s] = true
		for _, d := range pkgs[s].Deps {
			excused[d] = true
		}
	}
	checked := 0
	for path, p := range pkgs {
		rel, ok := own(path)
		if !ok || !under(rel, "workflows", "contracts") {
			continue
		}
		checked++
		for _, d := range p.Deps {
			if excused[d] {
				continue
			}
			for _, f := range forbidden {
				require.False(t, d == strings.TrimSuffix(f, "/") || strings.HasPrefix(d, f), "%s depends on %s", rel, d)
			}
			if dep, ok := own(d); ok {
				require.True(t, under(dep, "api", "contracts", "workflows"), "%s depends on %s", rel, dep)
			}
		}
	}
	require.GreaterOrEqual(t, checked, 4, "the workflow and contract packages were found")
}

// testSupport are own packages for tests only, such as the in-memory
// hypervisor that stands in for libvirt: no binary may link them.
var testSupport = []string{"node/libvirt/libvirtfake"}

// TestTestSupportStaysOutOfBinaries fails when an own package depends,
// directly or not, on a test-support package. go list's Deps leave out
// what _test.go files import, so what is checked is the code a binary
// links; the test-support packages themselves may build on each other.
func TestTestSupportStaysOutOfBinaries(t *testing.T) {
	pkgs := list(t)
	for _, s := range testSupport {
		require.Contains(t, pkgs, module+s, "the test-support package %s is not in the module", s)
	}
	for path, p := range pkgs {
		rel, _ := own(path)
		if under(rel, testSupport...) {
			continue
		}
		for _, d := range p.Deps {
			dep, ok := own(d)
			require.False(t, ok && slices.Contains(testSupport, dep), "%s depends on %s, which is for tests only", rel, dep)
		}
	}
}
