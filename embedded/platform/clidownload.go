package platform

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/commands/clidownload"
	"github.com/virtflow/virtflow/embedded/images"
)

// CLIDownloadsRepository is the virtctl-downloads image's name: the
// components image with the virtctl builds, tagged per build of both.
const CLIDownloadsRepository = "virtflow.local/virtctl-downloads"

// CLIDownloadService is hco's cli-download Service, as upstream names it.
const CLIDownloadService = "hyperconverged-cluster-cli-download"

// cliDownloadsImage adds the virtctl builds in dir (hack/virtctl-builds.sh
// when empty) to the components image: they are a layer of their own
// after its base, written once beside the builds and compressed once, so
// the node stores the base once and a new virtflow binary only replaces the
// small top layer.
func cliDownloadsImage(comps images.Image, dir string) (images.Image, error) {
	if dir == "" {
		out, err := exec.Command("hack/virtctl-builds.sh").Output()
		if err != nil {
			return images.Image{}, fmt.Errorf("building virtctl for cli-download (hack/virtctl-builds.sh): %w", err)
		}
		dir = strings.TrimSpace(string(out))
	}
	dir = filepath.Clean(dir)
	layer := dir + ".layer.tar"
	if _, err := os.Stat(layer); err != nil {
		if err := writeBuildsLayer(dir, layer); err != nil {
			return images.Image{}, err
		}
	}
	_, tag, _ := strings.Cut(comps.Ref, ":")
	img := comps
	img.Ref = fmt.Sprintf("%s:%s-%s", CLIDownloadsRepository, tag, strings.TrimPrefix(filepath.Base(dir), "virtctl-builds-"))
	img.BaseTars = append(append([]string{}, comps.BaseTars...), layer)
	return img, nil
}

// writeBuildsLayer lays the builds in dir out under clidownload.BuildsDir
// as a layer tarball.
func writeBuildsLayer(dir, layer string) error {
	var builds []images.Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir || d.Name() == "complete" {
			// complete marks a finished build, not something to serve.
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		e := images.Entry{Path: path.Join(clidownload.BuildsDir, filepath.ToSlash(rel)), Dir: d.IsDir(), Mode: 0o755}
		if !d.IsDir() {
			e.Source = p
		}
		builds = append(builds, e)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the virtctl builds in %s: %w", dir, err)
	}
	return images.WriteLayerTar(layer, builds)
}

// CLIDownloadsURL is where cli-download's Service serves the virtctl
// builds: its cluster IP, which kube-proxy routes from the node too.
func (p *Platform) CLIDownloadsURL(ctx context.Context) (string, error) {
	c, err := newKubeClient(p.cp.RESTConfig())
	if err != nil {
		return "", err
	}
	svc := &corev1.Service{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: CLIDownloadService}, svc); err != nil {
		return "", fmt.Errorf("reading Service %s: %w", CLIDownloadService, err)
	}
	return fmt.Sprintf("http://%s:%d", svc.Spec.ClusterIP, clidownload.Port), nil
}
