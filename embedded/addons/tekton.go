package addons

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/kube/rollout"
)

// TektonRepository is where Tekton's images are imported:
// <TektonRepository>/<command>:<version> for each of
// binaries.TektonCommands, and <TektonRepository>/shell:<version>.
const TektonRepository = "virtflow.local/tekton"

// TektonShell is the busybox the shell image is made of: Debian's
// busybox-static, which hack/install.sh installs.
const TektonShell = "/bin/busybox"

// TektonNamespace is where Tekton Pipelines runs.
const TektonNamespace = "tekton-pipelines"

// koEnv is what ko sets in the images it builds, and so what upstream's
// images run with.
var koEnv = []string{
	"PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/ko-app",
	"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
	"KO_DATA_PATH=/var/run/ko",
}

// koUser is the nonroot user of the distroless base upstream's images are
// built on; files the init containers leave in a TaskRun's volumes belong
// to it, as they do upstream.
const koUser = "65532"

// TektonPipelines is Tekton Pipelines on the node: its images and its
// release's manifests, rewritten to run those images.
type TektonPipelines struct {
	// Version is the release, e.g. v1.15.0.
	Version string
	// Images are imported into the node before Install.
	Images []images.Image
	// Objects are applied in this order, the release's.
	Objects []*unstructured.Unstructured
}

// Tekton is Tekton Pipelines at version from binDir (what
// binaries.EnsureTekton built) and srcDir (binaries.TektonSource, whose
// config/ holds the release's manifests), with a shell image made of the
// busybox binary (TektonShell).
func Tekton(binDir, srcDir, version, busybox string) (TektonPipelines, error) {
	t := TektonPipelines{Version: version}
	refs := map[string]string{}
	for _, name := range binaries.TektonCommands {
		img, err := tektonCommandImage(binDir, srcDir, name, version)
		if err != nil {
			return t, err
		}
		refs[name] = img.Ref
		t.Images = append(t.Images, img)
	}
	shell, err := tektonShellImage(busybox, version)
	if err != nil {
		return t, err
	}
	t.Images = append(t.Images, shell)
	if t.Objects, err = readTektonRelease(filepath.Join(srcDir, "config")); err != nil {
		return t, err
	}
	if err := rewriteTektonRelease(t.Objects, refs, shell.Ref, version); err != nil {
		return t, fmt.Errorf("rewriting Tekton Pipelines %s's release for the node: %w", version, err)
	}
	return t, nil
}

// tektonImageRef names a Tekton image.
func tektonImageRef(name, version string) string {
	return TektonRepository + "/" + name + ":" + version
}

// tektonCommandImage is the image ko builds of a command: the binary as
// /ko-app/<name>, its entrypoint, and the command's kodata (upstream's
// licence) under KO_DATA_PATH.
func tektonCommandImage(binDir, srcDir, name, version string) (images.Image, error) {
	layer := []images.Entry{{Path: "/ko-app/" + name, Source: filepath.Join(binDir, name), Mode: 0o755}}
	kodata := filepath.Join(srcDir, "cmd", name, "kodata")
	files, err := os.ReadDir(kodata)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return images.Image{}, fmt.Errorf("reading %s's kodata: %w", name, err)
	}
	for _, f := range files {
		if f.Type().IsRegular() {
			layer = append(layer, images.Entry{Path: "/var/run/ko/" + f.Name(), Source: filepath.Join(kodata, f.Name()), Mode: 0o644})
		}
	}
	return images.Image{
		Ref: tektonImageRef(name, version), Layers: [][]images.Entry{layer},
		Entrypoint: []string{"/ko-app/" + name}, Env: koEnv, User: koUser,
	}, nil
}

// tektonShellImage is the image the controller runs scripts' init
// container in (`sh -c` writing each step's script with cat, touch and
// chmod), and the one a step may name to run its script: busybox with a
// link for each of its commands. It runs as root, as upstream's shell image
// does, so it can create directories on any volume.
func tektonShellImage(busybox, version string) (images.Image, error) {
	out, err := exec.Command(busybox, "--list-full").Output()
	if err != nil {
		return images.Image{}, fmt.Errorf("listing %s's commands for Tekton's shell image (hack/install.sh installs busybox-static): %w", busybox, err)
	}
	layer := []images.Entry{{Path: "/bin/busybox", Source: busybox, Mode: 0o755}, {Path: "/tmp", Dir: true, Mode: 0o777}}
	for _, line := range strings.Fields(string(out)) {
		if p := "/" + strings.TrimPrefix(line, "/"); p != "/bin/busybox" {
			layer = append(layer, images.Entry{Path: p, Link: "/bin/busybox"})
		}
	}
	return images.Image{
		Ref: tektonImageRef("shell", version), Layers: [][]images.Entry{layer},
		Env: []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
	}, nil
}

// Install applies the release's objects. Objects the webhook admits (its
// ConfigMaps, once an earlier start registered it) cannot be applied
// until the webhook, which the same objects start, answers: whatever
// failed is applied again until it succeeds or two minutes have passed.
func (t TektonPipelines) Install(ctx context.Context, c client.Client) error {
	deadline := time.Now().Add(2 * time.Minute)
	pending := t.Objects
	for {
		var err error
		if pending, err = applyEach(ctx, c, pending); len(pending) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("installing Tekton Pipelines %s: %w", t.Version, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("installing Tekton Pipelines %s: %w", t.Version, errors.Join(ctx.Err(), err))
		case <-time.After(2 * time.Second):
		}
	}
}

// applyEach server-side applies every object, as `kubectl apply
// --server-side --force-conflicts` would, and returns those that failed.
func applyEach(ctx context.Context, c client.Client, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	var failed []*unstructured.Unstructured
	var errs []error
	for _, o := range objs {
		// The patch overwrites its object with the server's answer; the
		// release's copy is kept for a retry and a later start.
		obj := o.DeepCopy()
		if err := c.Patch(ctx, obj, client.Apply, client.FieldOwner("virtflow"), client.ForceOwnership); err != nil {
			failed = append(failed, o)
			errs = append(errs, fmt.Errorf("applying %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err))
		}
	}
	return failed, errors.Join(errs...)
}

// WaitReady waits until each of Tekton's Deployments (controller, webhook,
// events controller) is Available: its pods Ready by their own readiness
// probes.
func (t TektonPipelines) WaitReady(ctx context.Context, c client.Client) error {
	for _, o := range t.Objects {
		if o.GetKind() != "Deployment" {
			continue
		}
		key := client.ObjectKey{Namespace: o.GetNamespace(), Name: o.GetName()}
		if err := rollout.Deployment(ctx, c, key, 3*time.Minute); err != nil {
			return fmt.Errorf("waiting for Tekton Pipelines %s: %w", t.Version, err)
		}
	}
	return nil
}
