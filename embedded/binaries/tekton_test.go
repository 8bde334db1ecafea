package binaries

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pinTekton writes a tools module pinning Tekton at version.
func pinTekton(t *testing.T, version string) string {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n\nrequire github.com/tektoncd/pipeline "+version+"\n"), 0o644))
	return dir
}

// cached fills a cache directory with every Tekton command.
func cached(t *testing.T, binDir string) {
	require.NoError(t, os.MkdirAll(binDir, 0o755))
	for _, name := range TektonCommands {
		require.NoError(t, os.WriteFile(filepath.Join(binDir, name), nil, 0o755))
	}
}

func TestTektonsCacheIsKeyedByThePinnedVersion(t *testing.T) {
	cacheRoot := t.TempDir()
	cached(t, filepath.Join(cacheRoot, "tekton-v1.15.0", "bin"))
	cached(t, filepath.Join(cacheRoot, "tekton-v1.16.0", "bin"))
	noBuild := func(s string) { t.Fatalf("nothing should be built: %s", s) }
	for _, version := range []string{"v1.15.0", "v1.16.0"} {
		dir, got, err := EnsureTekton(context.Background(), pinTekton(t, version), cacheRoot, noBuild)
		require.NoError(t, err)
		require.Equal(t, version, got)
		require.Equal(t, filepath.Join(cacheRoot, "tekton-"+version, "bin"), dir)
	}
	_, _, err := EnsureTekton(context.Background(), t.TempDir(), cacheRoot, noBuild)
	require.ErrorContains(t, err, "reading tools module")
}

func TestTektonsToolsModuleImportsEveryCommandBuilt(t *testing.T) {
	src, err := os.ReadFile("../../tools/tekton/tools.go")
	require.NoError(t, err)
	var imported []string
	for _, line := range strings.Split(string(src), "\n") {
		if pkg, ok := strings.CutPrefix(strings.TrimSpace(line), "_ "); ok {
			p, err := strconv.Unquote(pkg)
			require.NoError(t, err)
			imported = append(imported, p)
		}
	}
	var built []string
	for name, pkg := range TektonPackages() {
		require.Equal(t, TektonModule+"/cmd/"+name, pkg)
		built = append(built, pkg)
	}
	require.ElementsMatch(t, imported, built)
	require.Len(t, built, 7)
}

func TestTheRevisionIsTheTagsShortCommit(t *testing.T) {
	dir := t.TempDir()
	info := filepath.Join(dir, "v1.15.0.info")
	require.NoError(t, os.WriteFile(info, []byte(`{"Version":"v1.15.0","Origin":{"VCS":"git","Hash":"70f730815249a12aa725266fba7f3ff39653aaea"}}`), 0o644))
	require.Equal(t, "70f7308", revisionFromInfo(info, "v1.15.0"))
	require.NoError(t, os.WriteFile(info, []byte(`{"Version":"v1.15.0"}`), 0o644))
	require.Equal(t, "v1.15.0", revisionFromInfo(info, "v1.15.0"), "no origin recorded")
	require.Equal(t, "v1.15.0", revisionFromInfo(filepath.Join(dir, "missing.info"), "v1.15.0"))
}
