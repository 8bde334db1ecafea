package layout

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mistyped are calls through the contracts' typed descriptors, one a line,
// and the words the compiler's error on that line must contain; none for a
// call that must compile.
var mistyped = []struct {
	call string
	want []string
}{
	{`_, _ = cdi.ImportDisk.Execute(ctx, cdi.ImportRequest{})`, nil},
	{`_, _ = cdi.ImportDisk.Execute(ctx, cdi.CloneRequest{})`, []string{"cdi.CloneRequest", "cdi.ImportRequest", "cdi.ImportDisk.Execute"}},
	{`s, _ = cdi.CheckSource.Execute(ctx, cdi.CronRef{})`, nil},
	{`s, _ = cdi.ImportDisk.Execute(ctx, cdi.ImportRequest{})`, []string{"cdi.ImportResult", "cdi.SourceState"}},
	{`_ = cdi.RecordPoll.Execute(ctx, cdi.ImportTarget{})`, []string{"cdi.ImportTarget", "cdi.PollRecord", "cdi.RecordPoll.Execute"}},
	{`_ = cdi.CleanupDisk.Execute(ctx, cdi.ImportRequest{})`, []string{"not enough arguments", "cdi.CleanupDisk.Execute"}},
	{`_ = cdi.ImportDisk.Bind(func(context.Context, cdi.CloneRequest) (cdi.ImportResult, error) { return cdi.ImportResult{}, nil })`, []string{"cdi.CloneRequest", "cdi.ImportDisk.Bind"}},
	{`_ = cdi.CloneWorkflow.Bind(func(workflow.Context, cdi.ImportInput) (cdi.ImportResult, error) { return cdi.ImportResult{}, nil })`, []string{"cdi.ImportInput", "cdi.CloneWorkflow.Bind"}},
	{`_ = cdi.ProgressSignal.Send(context.Background(), nil, "", "", cdi.ActivityProgress{})`, nil},
	{`_ = cdi.ProgressSignal.Send(context.Background(), nil, "", "", cdi.ImportProgress{})`, []string{"cdi.ImportProgress", "cdi.ActivityProgress", "cdi.ProgressSignal.Send"}},
}

// mistypedHeader precedes the calls; the first call is on the line after
// its last.
const mistypedHeader = `package mistyped

import (
	"context"

	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
)

var _ = context.Background

func calls(ctx workflow.Context, s cdi.SourceState) {
`

// TestMistypedActivityCallsDoNotCompile compiles a package that exists only
// in a build overlay, so the tree is never written to, calling activities
// and binding implementations with the wrong types: each such line must be
// a compile error naming the types at odds, and the well-typed call none.
// It is what the typed descriptors are for, so a change that makes them
// accept anything fails here.
func TestMistypedActivityCallsDoNotCompile(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	errs := compileOverlay(t, filepath.Join(root, "layout", "mistyped", "mistyped.go"), mistypedSource())
	first := strings.Count(mistypedHeader, "\n") + 1
	for i, c := range mistyped {
		line := first + i
		if c.want == nil {
			require.Empty(t, errs[line], "line %d, %s, compiles", line, c.call)
			continue
		}
		require.NotEmpty(t, errs[line], "line %d, %s, is a compile error", line, c.call)
		for _, w := range c.want {
			require.Contains(t, strings.Join(errs[line], "\n"), w, "the error on line %d", line)
		}
	}
}

func mistypedSource() string {
	var b strings.Builder
	b.WriteString(mistypedHeader)
	for _, c := range mistyped {
		b.WriteString("\t" + c.call + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// compileErr is one line of the compiler's output: file:line:col: message.
var compileErr = regexp.MustCompile(`(?m)mistyped\.go:(\d+):\d+: (.*)$`)

// compileOverlay builds the package of path, whose only file is src, and
// returns the compiler's errors by line.
func compileOverlay(t *testing.T, path, src string) map[int][]string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "mistyped.go")
	require.NoError(t, os.WriteFile(file, []byte(src), 0o600))
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {path: file}})
	require.NoError(t, err)
	overlayFile := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(overlayFile, overlay, 0o600))
	cmd := exec.Command("go", "build", "-overlay="+overlayFile, "./"+filepath.Base(filepath.Dir(path)))
	cmd.Dir = filepath.Dir(filepath.Dir(path))
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the mistyped calls compiled:\n%s", out)
	errs := map[int][]string{}
	for _, m := range compileErr.FindAllStringSubmatch(string(out), -1) {
		line, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		errs[line] = append(errs[line], m[2])
	}
	require.NotEmpty(t, errs, "the build failed for another reason than the calls:\n%s", out)
	t.Logf("compiler output:\n%s", out)
	return errs
}
