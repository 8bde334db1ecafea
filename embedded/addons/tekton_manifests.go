package addons

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/kube/apply"
)

// koPrefix marks, in the release's sources, an image ko builds from a
// package and replaces by its reference.
const koPrefix = "ko://"

// tektonImageFlags are the controller's flags naming the images it puts
// into TaskRuns' pods; each must name an image the node has.
var tektonImageFlags = []string{"-entrypoint-image", "-nop-image", "-sidecarlogresults-image", "-workingdirinit-image", "-shell-image", "-shell-image-win"}

// tektonShellFlags name the shell image; upstream pins one on a registry.
// The Windows one is required but never used: the node runs Linux.
var tektonShellFlags = []string{"-shell-image", "-shell-image-win"}

// tektonVersionLabels are the labels the release stamps with its version
// where the sources say "devel" (its publish pipeline does that with sed).
var tektonVersionLabels = []string{"pipeline.tekton.dev/release", "app.kubernetes.io/version", "version"}

// readTektonRelease reads what the release is made of (`ko resolve -R -f
// config/`), in the same order, less two parts the node does without:
// config/resolvers, the remote resolvers, which fetch tasks from git, hubs,
// bundles and URLs the node cannot reach; and the webhook's
// HorizontalPodAutoscaler, which needs a metrics server the node does not
// run.
func readTektonRelease(configDir string) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	err := filepath.WalkDir(configDir, func(file string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "resolvers":
			return filepath.SkipDir
		case d.IsDir() || (!strings.HasSuffix(file, ".yaml") && !strings.HasSuffix(file, ".yml")):
			return nil
		}
		docs, err := readObjects(file)
		objs = append(objs, docs...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading Tekton's release from %s: %w", configDir, err)
	}
	objs = slices.DeleteFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == "HorizontalPodAutoscaler" })
	if len(objs) == 0 {
		return nil, fmt.Errorf("no manifests in %s", configDir)
	}
	return objs, nil
}

// readObjects decodes every object of a multi-document YAML file,
// skipping documents that hold only comments.
func readObjects(file string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return apply.Decode(file, data)
}

// rewriteTektonRelease makes the release run on the node: every ko://
// image becomes the local image of its command (refs, by command name),
// the shell image flags name shell, and "devel" becomes version as the
// publish pipeline makes it. Nothing else changes: the feature flags and
// other ConfigMaps are upstream's defaults, none of which needs the
// internet.
func rewriteTektonRelease(objs []*unstructured.Unstructured, refs map[string]string, shell, version string) error {
	for _, o := range objs {
		stampVersion(o, version)
		if o.GetKind() != "Deployment" {
			continue
		}
		if err := rewriteContainers(o, refs, shell); err != nil {
			return fmt.Errorf("deployment %s: %w", o.GetName(), err)
		}
	}
	return checkTektonRelease(objs)
}

// stampVersion replaces "devel" in the version labels of the object and
// of its pods, and in pipelines-info, which tools read the version from.
func stampVersion(o *unstructured.Unstructured, version string) {
	for _, fields := range [][]string{{"metadata", "labels"}, {"spec", "template", "metadata", "labels"}} {
		labels, found, err := unstructured.NestedStringMap(o.Object, fields...)
		if !found || err != nil {
			continue
		}
		for _, k := range tektonVersionLabels {
			if labels[k] == "devel" {
				labels[k] = version
			}
		}
		_ = unstructured.SetNestedStringMap(o.Object, labels, fields...)
	}
	if o.GetKind() == "ConfigMap" && o.GetName() == "pipelines-info" {
		if v, _, _ := unstructured.NestedString(o.Object, "data", "version"); v == "devel" {
			_ = unstructured.SetNestedField(o.Object, version, "data", "version")
		}
	}
}

// rewriteContainers rewrites the images and image flags of a Deployment's
// containers.
func rewriteContainers(o *unstructured.Unstructured, refs map[string]string, shell string) error {
	containers, _, err := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
	if err != nil {
		return fmt.Errorf("reading containers: %w", err)
	}
	for _, c := range containers {
		c, ok := c.(map[string]any)
		if !ok {
			return fmt.Errorf("a container is not an object")
		}
		image, _ := c["image"].(string)
		if c["image"], err = localImage(image, refs); err != nil {
			return err
		}
		args, _ := c["args"].([]any)
		for i, a := range args {
			s, _ := a.(string)
			switch {
			case strings.HasPrefix(s, koPrefix):
				if args[i], err = localImage(s, refs); err != nil {
					return err
				}
			case slices.Contains(tektonShellFlags, s) && i+1 < len(args):
				args[i+1] = shell
			}
		}
	}
	return unstructured.SetNestedSlice(o.Object, containers, "spec", "template", "spec", "containers")
}

// localImage is the local image of a ko:// reference to one of Tekton's
// commands; any other reference is returned as it is.
func localImage(ref string, refs map[string]string) (string, error) {
	pkg, ok := strings.CutPrefix(ref, koPrefix)
	if !ok {
		return ref, nil
	}
	local, built := refs[path.Base(pkg)]
	if !built || pkg != binaries.TektonModule+"/cmd/"+path.Base(pkg) {
		return "", fmt.Errorf("the release runs %s, which is not among the commands built (%v)", pkg, binaries.TektonCommands)
	}
	return local, nil
}

// tektonController is the Deployment whose flags name TaskRuns' images.
const tektonController = "tekton-pipelines-controller"

// checkTektonRelease makes sure nothing in the release would ask a
// registry for an image: no ko:// reference is left, every container runs
// a local image, and the controller names a local image in each of its
// image flags.
func checkTektonRelease(objs []*unstructured.Unstructured) error {
	var controller bool
	for _, o := range objs {
		if s := findPrefixed(o.Object, koPrefix); s != "" {
			return fmt.Errorf("%s %s still names %s", o.GetKind(), o.GetName(), s)
		}
		if o.GetKind() != "Deployment" {
			continue
		}
		flags, err := checkContainers(o)
		if err != nil {
			return fmt.Errorf("deployment %s: %w", o.GetName(), err)
		}
		if o.GetName() != tektonController {
			continue
		}
		controller = true
		for _, f := range tektonImageFlags {
			if !flags[f] {
				return fmt.Errorf("deployment %s has no %s flag", tektonController, f)
			}
		}
	}
	if !controller {
		return fmt.Errorf("the release has no Deployment %s", tektonController)
	}
	return nil
}

// checkContainers makes sure a Deployment's containers run local images
// and that each flag naming an image (…-image, …-image-win) names a local
// one; it returns those flags.
func checkContainers(o *unstructured.Unstructured) (map[string]bool, error) {
	containers, _, err := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
	if err != nil {
		return nil, fmt.Errorf("reading containers: %w", err)
	}
	flags := map[string]bool{}
	for _, c := range containers {
		c, _ := c.(map[string]any)
		if image, _ := c["image"].(string); !isLocal(image) {
			return nil, fmt.Errorf("container %v runs %q, which the node does not have", c["name"], image)
		}
		args, _ := c["args"].([]any)
		for i := 0; i+1 < len(args); i++ {
			flag, _ := args[i].(string)
			if !strings.HasSuffix(flag, "-image") && !strings.HasSuffix(flag, "-image-win") {
				continue
			}
			if value, _ := args[i+1].(string); !isLocal(value) {
				return nil, fmt.Errorf("%s names %q, which the node does not have", flag, value)
			}
			flags[flag] = true
		}
	}
	return flags, nil
}

// isLocal reports whether ref is one of the images Tekton imports.
func isLocal(ref string) bool {
	return strings.HasPrefix(ref, TektonRepository+"/")
}

// findPrefixed returns the first string in v starting with prefix.
func findPrefixed(v any, prefix string) string {
	switch v := v.(type) {
	case string:
		if strings.HasPrefix(v, prefix) {
			return v
		}
	case map[string]any:
		for _, x := range v {
			if s := findPrefixed(x, prefix); s != "" {
				return s
			}
		}
	case []any:
		for _, x := range v {
			if s := findPrefixed(x, prefix); s != "" {
				return s
			}
		}
	}
	return ""
}
