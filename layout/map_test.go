package layout

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// trackedDirs are the folders git tracks files in, relative to the
// repository's root, each with all its parents.
func trackedDirs(t *testing.T) map[string]bool {
	t.Helper()
	cmd := exec.Command("git", "ls-files")
	cmd.Dir = ".."
	out, err := cmd.Output()
	require.NoError(t, err, "listing the repository's files")
	dirs := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		for d := filepath.Dir(f); d != "."; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	return dirs
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestEveryFolderIsPlaced fails on a top-level folder that layout does not
// place (a new folder must be given its rules first), on a placed folder
// that is gone, and on a folder under operators/ that is not a product.
func TestEveryFolderIsPlaced(t *testing.T) {
	top := map[string]bool{}
	for d := range trackedDirs(t) {
		if !strings.Contains(d, "/") && !strings.HasPrefix(d, ".") {
			top[d] = true
		}
		if rest, ok := strings.CutPrefix(d, "operators/"); ok && !strings.Contains(rest, "/") {
			require.Contains(t, products, rest, "operators/%s is not one of the products %v", rest, products)
		}
	}
	for d := range top {
		require.Contains(t, folders, d, "the folder %s/ has no place in layout/folders_test.go (nor in docs/architecture.md)", d)
	}
	for d := range folders {
		require.True(t, top[d], "layout/folders_test.go places %s/, which is not in the repository", d)
	}
}

// productOf is the product of an own package under operators/, and whether
// it is one.
func productOf(rel string) (string, bool) {
	rest, ok := strings.CutPrefix(rel, "operators/")
	if !ok {
		return "", false
	}
	return strings.SplitN(rest, "/", 2)[0], true
}

// TestProductsDoNotImportEachOther fails when a package of one product's
// operators imports another product's, and when an operator package is not
// operators/<product>/<kind>: what two products share lives in kube/.
func TestProductsDoNotImportEachOther(t *testing.T) {
	checked := 0
	for path, p := range list(t) {
		rel, _ := own(path)
		product, ok := productOf(rel)
		if !ok {
			continue
		}
		checked++
		require.Len(t, strings.Split(rel, "/"), 3, "%s: operator packages are operators/<product>/<kind>", rel)
		for _, imp := range p.Imports {
			dep, _ := own(imp)
			if other, ok := productOf(dep); ok {
				require.Equal(t, product, other, "%s imports %s: products never import each other's packages", rel, dep)
			}
		}
	}
	require.Greater(t, checked, 20, "the operator packages were found")
}

// layoutRow is a row of a Markdown table that names a top-level folder.
var layoutRow = regexp.MustCompile("(?m)^\\| `([a-z]+)/` \\|")

// section is the text of a Markdown section, from its heading to the next
// heading of the same level.
func section(t *testing.T, file, heading string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", file))
	require.NoError(t, err)
	text := string(data)
	start := strings.Index(text, "\n"+heading+"\n")
	require.GreaterOrEqual(t, start, 0, "%s has a %q section", file, heading)
	text = text[start+len(heading)+2:]
	level := strings.SplitN(heading, " ", 2)[0] + " "
	if end := strings.Index(text, "\n"+level); end >= 0 {
		text = text[:end]
	}
	return text
}

func rowFolders(text string) []string {
	var out []string
	for _, m := range layoutRow.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// TestReadmeLayoutNamesEveryFolder keeps the README's layout table and
// docs/architecture.md's folder table to the folders layout places, no
// more, no fewer.
func TestReadmeLayoutNamesEveryFolder(t *testing.T) {
	require.Equal(t, keys(folders), rowFolders(section(t, "README.md", "## Layout")), "README.md's layout table")
	require.Equal(t, keys(folders), rowFolders(section(t, "docs/architecture.md", "## Folders")), "docs/architecture.md's folder table")
}

// TestArchitectureDocMapsEveryOperatorPackage fails when a product's
// package is missing from docs/architecture.md's map of the products.
func TestArchitectureDocMapsEveryOperatorPackage(t *testing.T) {
	doc := section(t, "docs/architecture.md", "## Products")
	for d := range trackedDirs(t) {
		if _, ok := productOf(d); ok && strings.Count(d, "/") == 2 {
			require.Contains(t, doc, "`"+d+"`", "docs/architecture.md's products section does not name %s", d)
		}
	}
}
