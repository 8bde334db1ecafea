package platform

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/virtflow/virtflow/embedded/images"
)

// The Tekton tasks' step images: the step programs alone, and them on
// Debian's libguestfs tools for the disk-virt tasks. Each is tagged with
// the step programs' digest, so a rebuilt binary changes the Tasks.
const (
	TektonTasksRepository         = "virtflow.local/tekton-tasks"
	TektonTasksDiskVirtRepository = "virtflow.local/tekton-tasks-disk-virt"
)

// tasksBinary is the static step-programs binary, built beside virtflow.
const tasksBinary = "virtflow-tasks"

// tasksCommands are the names the Task YAMLs run, as upstream's image
// has them; the binary tells them apart by the name it was run as.
var tasksCommands = []string{"create-vm", "copy-template", "modify-vm-template", "modify-data-object", "entrypoint"}

// tasksUser runs the tasks image, a non-root user as the Tasks' security
// context demands.
const tasksUser = "1001"

// tektonTasksImages are the two step images; the disk-virt one runs as
// guestfs's user, who owns the disk images it customizes.
func tektonTasksImages(guestfs images.Image) (images.Image, images.Image, error) {
	bin := siblingBinary(tasksBinary)
	tag, err := fileDigest(bin)
	if err != nil {
		return images.Image{}, images.Image{}, fmt.Errorf("the tekton tasks' images need %s beside virtflow (make up builds it): %w", tasksBinary, err)
	}
	layer := []images.Entry{{Path: "/usr/bin/" + tasksBinary, Source: bin, Mode: 0o755}, {Path: "/tmp", Dir: true, Mode: 0o777}}
	for _, c := range tasksCommands {
		layer = append(layer, images.Entry{Path: path.Join("/usr/local/bin", c), Link: "/usr/bin/" + tasksBinary})
	}
	env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/tmp"}
	tasks := images.Image{
		Ref: TektonTasksRepository + ":" + tag, Layers: [][]images.Entry{layer},
		Entrypoint: []string{"/usr/bin/" + tasksBinary}, Env: env, User: tasksUser,
	}
	diskVirt := images.Image{
		Ref: TektonTasksDiskVirtRepository + ":" + tag, BaseTars: guestfs.BaseTars,
		Layers:     append(guestfs.Layers, layer),
		Entrypoint: []string{"/usr/local/bin/entrypoint"}, Env: env, User: guestfs.User,
	}
	return tasks, diskVirt, nil
}

// fileDigest is the first six bytes of a file's SHA-256, in hex.
func fileDigest(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", file, err)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:6]), nil
}
