package addons

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/virtflow/virtflow/embedded/binaries"
)

// pinnedTekton is the Tekton version tools/tekton pins.
func pinnedTekton(t *testing.T) string {
	f, err := os.Open("../../tools/tekton/go.mod")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(sc.Text(), "require "))
		if len(fields) >= 2 && fields[0] == binaries.TektonModule {
			return fields[1]
		}
	}
	t.Fatal("tools/tekton does not pin Tekton")
	return ""
}

// fakeBusybox lists three commands, one of them busybox itself.
func fakeBusybox(t *testing.T) string {
	file := filepath.Join(t.TempDir(), "busybox")
	require.NoError(t, os.WriteFile(file, []byte("#!/bin/sh\nprintf 'bin/sh\\nbin/busybox\\nusr/bin/env\\n'\n"), 0o755))
	return file
}

// releaseTekton is the pinned release read from the module source, with
// placeholder binaries.
func releaseTekton(t *testing.T) TektonPipelines {
	version := pinnedTekton(t)
	src, err := binaries.TektonSource(context.Background(), version)
	require.NoError(t, err)
	binDir := t.TempDir()
	for _, name := range binaries.TektonCommands {
		require.NoError(t, os.WriteFile(filepath.Join(binDir, name), []byte(name), 0o755))
	}
	tk, err := Tekton(binDir, src, version, fakeBusybox(t))
	require.NoError(t, err)
	return tk
}

func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

func containersOf(t *testing.T, o *unstructured.Unstructured) []map[string]any {
	cs, _, err := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
	require.NoError(t, err)
	var out []map[string]any
	for _, c := range cs {
		out = append(out, c.(map[string]any))
	}
	return out
}

func TestTektonsReleaseRunsOnlyTheImagesTheNodeImports(t *testing.T) {
	tk := releaseTekton(t)
	imported := map[string]bool{}
	for _, img := range tk.Images {
		imported[img.Ref] = true
	}
	var deployments []string
	for _, o := range tk.Objects {
		require.Empty(t, findPrefixed(o.Object, "ko://"), "%s %s", o.GetKind(), o.GetName())
		if o.GetKind() != "Deployment" {
			continue
		}
		deployments = append(deployments, o.GetName())
		for _, c := range containersOf(t, o) {
			require.True(t, imported[c["image"].(string)], "%s runs %s", o.GetName(), c["image"])
			args, _ := c["args"].([]any)
			for _, a := range args {
				for _, registry := range []string{"cgr.dev", "mcr.microsoft.com", "gcr.io", "@sha256:"} {
					require.NotContains(t, a, registry)
				}
			}
		}
	}
	require.ElementsMatch(t, []string{"tekton-pipelines-controller", "tekton-pipelines-webhook", "tekton-events-controller"}, deployments)
}

func TestTektonsControllerPutsLocalImagesIntoTaskRunPods(t *testing.T) {
	tk := releaseTekton(t)
	controller := find(tk.Objects, "Deployment", "tekton-pipelines-controller")
	require.NotNil(t, controller)
	c := containersOf(t, controller)[0]
	require.Equal(t, tektonImageRef("controller", tk.Version), c["image"])
	args := c["args"].([]any)
	flag := func(name string) any {
		i := slices.Index(args, any(name))
		require.GreaterOrEqual(t, i, 0, "flag %s", name)
		return args[i+1]
	}
	shell := tektonImageRef("shell", tk.Version)
	require.Equal(t, shell, tk.Images[len(tk.Images)-1].Ref)
	for f, want := range map[string]string{
		"-entrypoint-image": tektonImageRef("entrypoint", tk.Version), "-nop-image": tektonImageRef("nop", tk.Version),
		"-sidecarlogresults-image": tektonImageRef("sidecarlogresults", tk.Version),
		"-workingdirinit-image":    tektonImageRef("workingdirinit", tk.Version),
		"-shell-image":             shell, "-shell-image-win": shell,
	} {
		require.Equal(t, want, flag(f), f)
	}
}

func TestTektonsReleaseIsStampedAndLeavesOutWhatNeedsTheInternet(t *testing.T) {
	tk := releaseTekton(t)
	require.Equal(t, "Namespace", tk.Objects[0].GetKind())
	require.Equal(t, TektonNamespace, tk.Objects[0].GetName())
	var crds int
	for _, o := range tk.Objects {
		require.NotEqual(t, "HorizontalPodAutoscaler", o.GetKind())
		require.NotEqual(t, "tekton-pipelines-resolvers", o.GetNamespace(), "%s %s", o.GetKind(), o.GetName())
		if o.GetKind() == "CustomResourceDefinition" {
			crds++
		}
		for _, k := range tektonVersionLabels {
			require.NotEqual(t, "devel", o.GetLabels()[k], "%s %s label %s", o.GetKind(), o.GetName(), k)
		}
	}
	require.Equal(t, 8, crds)
	info := find(tk.Objects, "ConfigMap", "pipelines-info")
	require.NotNil(t, info)
	v, _, _ := unstructured.NestedString(info.Object, "data", "version")
	require.Equal(t, tk.Version, v)
	flags := find(tk.Objects, "ConfigMap", "feature-flags")
	require.NotNil(t, flags)
	api, _, _ := unstructured.NestedString(flags.Object, "data", "enable-api-fields")
	require.Equal(t, "beta", api, "upstream's defaults")
}

func TestTheCheckCatchesAnImageTheNodeDoesNotHave(t *testing.T) {
	for name, spoil := range map[string]func(args []any, c map[string]any){
		"registry shell": func(args []any, _ map[string]any) {
			args[slices.Index(args, any("-shell-image"))+1] = "cgr.dev/chainguard/busybox"
		},
		"no nop flag":      func(args []any, _ map[string]any) { args[slices.Index(args, any("-nop-image"))] = "-other" },
		"registry image":   func(_ []any, c map[string]any) { c["image"] = "ghcr.io/tektoncd/controller" },
		"ko:// left alone": func(args []any, _ map[string]any) { args[len(args)-1] = "ko://x" },
	} {
		t.Run(name, func(t *testing.T) {
			tk := releaseTekton(t)
			require.NoError(t, checkTektonRelease(tk.Objects))
			controller := find(tk.Objects, "Deployment", "tekton-pipelines-controller")
			cs, _, _ := unstructured.NestedSlice(controller.Object, "spec", "template", "spec", "containers")
			c := cs[0].(map[string]any)
			spoil(c["args"].([]any), c)
			require.NoError(t, unstructured.SetNestedSlice(controller.Object, cs, "spec", "template", "spec", "containers"))
			require.Error(t, checkTektonRelease(tk.Objects))
		})
	}
}

func TestALocalImageIsOnlyForACommandThatWasBuilt(t *testing.T) {
	refs := map[string]string{"nop": "virtflow.local/tekton/nop:v1"}
	got, err := localImage("ko://github.com/tektoncd/pipeline/cmd/nop", refs)
	require.NoError(t, err)
	require.Equal(t, "virtflow.local/tekton/nop:v1", got)
	_, err = localImage("ko://github.com/tektoncd/pipeline/cmd/resolvers", refs)
	require.ErrorContains(t, err, "not among the commands built")
	_, err = localImage("ko://example.com/other/cmd/nop", refs)
	require.Error(t, err)
	got, err = localImage("busybox", refs)
	require.NoError(t, err)
	require.Equal(t, "busybox", got)
}

func TestInstallRetriesWhatTheWebhookRefusedUntilItAnswers(t *testing.T) {
	tk := releaseTekton(t)
	refusals := 1
	applied := map[string]int{}
	c := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(_ context.Context, _ client.WithWatch, obj client.Object, patch client.Patch, _ ...client.PatchOption) error {
			require.Equal(t, client.Apply.Type(), patch.Type())
			if obj.GetName() == "feature-flags" && refusals > 0 {
				refusals--
				return context.DeadlineExceeded
			}
			obj.SetResourceVersion("1")
			applied[obj.GetObjectKind().GroupVersionKind().Kind+"/"+obj.GetName()]++
			return nil
		},
	}).Build()
	require.NoError(t, tk.Install(context.Background(), c))
	require.Zero(t, refusals)
	require.Len(t, applied, len(tk.Objects))
	require.Equal(t, 1, applied["ConfigMap/feature-flags"])
	require.Equal(t, 1, applied["Deployment/tekton-pipelines-controller"], "what succeeded is not applied again")
	require.Empty(t, tk.Objects[0].GetResourceVersion(), "the release's objects are kept as read")
}
