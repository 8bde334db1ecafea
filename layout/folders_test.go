package layout

// place is where a top-level folder of the repository sits in the layout.
type place struct {
	// imports are the own top-level folders its Go packages may import
	// (its own always included); nil for a folder without Go packages.
	imports []string
	// any lets the folder's packages import every own folder: the
	// composition roots and the tests of the whole.
	any bool
}

// folders places every top-level folder of the repository, as
// docs/architecture.md draws them. A folder not listed here fails
// TestEveryFolderIsPlaced until it is given a place, and the README's
// layout table must name the same folders.
var folders = map[string]place{
	"api":       {imports: []string{}},
	"contracts": {imports: []string{"api"}},
	"workflows": {imports: []string{"api", "contracts", "replaytest"}},
	"kube":      {imports: []string{"api", "contracts"}},
	"operands":  {imports: []string{"api", "contracts", "kube"}},
	"wire":      {imports: []string{}},
	"version":   {imports: []string{}},
	// replaytest is the workflows' test helper: it replays recorded
	// histories, reading files, so it stays outside workflows/.
	"replaytest": {imports: []string{}},
	// activities run the Tekton tasks' step code as durable steps.
	"activities": {imports: []string{"api", "contracts", "kube", "operands", "tasks"}},
	// operators: a product's packages import their own product's only
	// (TestProductsDoNotImportEachOther).
	"operators": {imports: []string{"api", "contracts", "kube", "operands", "wire", "version"}},
	"node":      {imports: []string{"api", "contracts", "kube", "wire"}},
	"worker":    {imports: []string{"api", "contracts", "kube", "activities", "workflows", "tasks"}},
	// tasks are the Tekton step programs: Kubernetes code and virtctl's
	// VM builder and console stream, never operators or node code (their
	// binary is static, for images of their own).
	"tasks": {imports: []string{"api", "kube", "virtctl", "version"}},
	// console's server reaches the kube-apiserver as the logged-in user
	// and reads Temporal, never operators or node code (the workflows'
	// owners come from contracts' names).
	"console": {imports: []string{"api", "kube", "contracts", "version"}},
	"virtctl": {imports: []string{"api", "kube", "wire", "version"}},
	// commands are what the workloads' pods run: each wires operators or
	// node code, and the worker, to a manager.
	"commands": {imports: []string{"api", "contracts", "kube", "operands", "wire", "version", "operators", "node", "worker", "tasks", "console"}},
	// embedded starts the embedded mode; it deploys the same manifests as
	// cluster mode and runs no operator itself. Its Temporal enforces the
	// access policy of contracts/temporalauth.
	"embedded": {imports: []string{"api", "contracts", "kube", "operands", "wire", "version", "deploy", "node", "worker", "commands", "console"}},
	// deploy holds the manifests and generates the CRDs from api/.
	"deploy":      {imports: []string{"api"}},
	"cmd":         {any: true},
	"integration": {any: true},
	// fidelity tests the whole API surface: every VMI spec field against
	// virt-api, the launcher pod and the domain builder.
	"fidelity": {any: true},
	"layout":   {imports: []string{}},
	// tools are separate modules that build pinned upstream programs.
	"tools":    {any: true},
	"docs":     {},
	"examples": {},
	"hack":     {},
}

// products are the folders under operators/, one per product; every
// package of a product is operators/<product>/<kind>.
var products = []string{"kubevirt", "cdi", "hco", "ssp", "networkaddons", "hostpathprovisioner", "tekton"}

// may reports whether a package in folder may import an own package in dep.
func may(folder, dep string) bool {
	p := folders[folder]
	if p.any || dep == folder {
		return true
	}
	for _, f := range p.imports {
		if f == dep {
			return true
		}
	}
	return false
}
