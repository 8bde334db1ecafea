package web

import (
	"io/fs"
	"testing"
)

// The bundle may or may not be built where tests run; either way Assets is
// rooted at dist, and a built bundle is complete.
func TestAssetsRootedAtDist(t *testing.T) {
	a := Assets()
	if _, err := fs.Stat(a, ".keep"); err != nil {
		t.Fatalf("dist/.keep not at the root of Assets(): %v", err)
	}
	if _, err := fs.Stat(a, "index.html"); err != nil {
		t.Skip("bundle not built (hack/console-build.sh)")
	}
	for _, name := range []string{"app.js", "app.css"} {
		if _, err := fs.Stat(a, name); err != nil {
			t.Errorf("index.html is built but %s is missing: %v", name, err)
		}
	}
}
