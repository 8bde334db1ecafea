package launcher

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/libvirt/domain"
)

// ImageDir is where a containerDisk or kernel-boot image is found in the
// local image store: "<store>/<name>/<tag>", e.g. virtflow/test-guest:latest
// is <store>/virtflow/test-guest/latest. An image without a tag is "latest".
func ImageDir(store, image string) (string, error) {
	name, tag := image, "latest"
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		name, tag = image[:i], image[i+1:]
	}
	if name == "" || strings.Contains(name, "..") || strings.Contains(tag, "/") {
		return "", fmt.Errorf("invalid image reference %q", image)
	}
	dir := filepath.Join(store, filepath.FromSlash(name), tag)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("image %s is not in the local image store (%s)", image, dir)
	}
	return dir, nil
}

// resolved is what the domain builder needs from the node.
type resolved struct {
	sources        map[string]domain.Source
	kernel, initrd string
}

// prepareVolumes makes every volume of the VMI available as a file or
// device the unprivileged qemu can open: writable overlays on top of
// read-only container disks, cloud-init ISOs, sparse empty disks.
func prepareVolumes(ctx context.Context, cfg Config) (resolved, error) {
	r := resolved{sources: map[string]domain.Source{}}
	disks := filepath.Join(cfg.Dir, "disks")
	if err := os.MkdirAll(disks, 0o755); err != nil {
		return r, fmt.Errorf("creating disk directory: %w", err)
	}
	for _, v := range cfg.VMI.Spec.Volumes {
		src, err := prepareVolume(ctx, cfg, disks, v)
		if err != nil {
			return r, fmt.Errorf("preparing volume %s: %w", v.Name, err)
		}
		if !src.Block && asRoot() {
			if err := os.Chown(src.Path, cfg.UID, cfg.GID); err != nil && !src.ReadOnly {
				return r, fmt.Errorf("handing volume %s to uid %d: %w", v.Name, cfg.UID, err)
			}
		}
		r.sources[v.Name] = src
	}
	return r, resolveKernel(cfg, &r)
}

func prepareVolume(ctx context.Context, cfg Config, disks string, v kubevirtv1.Volume) (domain.Source, error) {
	switch {
	case v.ContainerDisk != nil:
		return containerDisk(ctx, cfg, disks, v)
	case v.CloudInitNoCloud != nil:
		return cloudInit(ctx, cfg, disks, v)
	case v.EmptyDisk != nil:
		path := filepath.Join(disks, v.Name+".qcow2")
		size := strconv.FormatInt(v.EmptyDisk.Capacity.Value(), 10)
		return domain.Source{Path: path, Format: "qcow2"}, runTool(ctx, "qemu-img", "create", "-q", "-f", "qcow2", path, size)
	case v.PersistentVolumeClaim != nil:
		return claim(cfg, v.PersistentVolumeClaim.ClaimName)
	case v.DataVolume != nil:
		return claim(cfg, v.DataVolume.Name)
	}
	return domain.Source{}, fmt.Errorf("volume type is not supported; supported: containerDisk, cloudInitNoCloud, emptyDisk, persistentVolumeClaim, dataVolume")
}

func containerDisk(ctx context.Context, cfg Config, disks string, v kubevirtv1.Volume) (domain.Source, error) {
	dir, err := cfg.containerDiskDir(v.Name, v.ContainerDisk.Image)
	if err != nil {
		return domain.Source{}, err
	}
	base := filepath.Join(dir, filepath.FromSlash(v.ContainerDisk.Path))
	if v.ContainerDisk.Path == "" {
		if base, err = firstFile(filepath.Join(dir, "disk")); err != nil {
			return domain.Source{}, fmt.Errorf("image %s: %w", v.ContainerDisk.Image, err)
		}
	}
	format, err := detectFormat(ctx, base)
	if err != nil {
		return domain.Source{}, err
	}
	// The image stays pristine; the guest writes to a throwaway overlay,
	// which is what makes a containerDisk ephemeral.
	overlay := filepath.Join(disks, v.Name+".qcow2")
	err = runTool(ctx, "qemu-img", "create", "-q", "-f", "qcow2", "-F", format, "-b", base, overlay)
	return domain.Source{Path: overlay, Format: "qcow2"}, err
}

func decodeData(plain, b64 string) (string, error) {
	if b64 == "" {
		return plain, nil
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	return string(data), err
}

func claim(cfg Config, name string) (domain.Source, error) {
	p, ok := cfg.PVCPaths[name]
	if !ok {
		return domain.Source{}, fmt.Errorf("claim %s is not bound to a volume on this node", name)
	}
	if p.Block {
		return domain.Source{Path: p.Path, Block: true, Format: "raw"}, nil
	}
	path := p.Path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		// A filesystem volume holds its image as disk.img, as CDI writes it.
		path = filepath.Join(path, "disk.img")
	}
	return domain.Source{Path: path, Format: "raw"}, nil
}

func resolveKernel(cfg Config, r *resolved) error {
	fw := cfg.VMI.Spec.Domain.Firmware
	if fw == nil || fw.KernelBoot == nil || fw.KernelBoot.Container == nil {
		return nil
	}
	c := fw.KernelBoot.Container
	dir, err := cfg.kernelBootDir(c.Image)
	if err != nil {
		return fmt.Errorf("kernel boot: %w", err)
	}
	if c.KernelPath != "" {
		r.kernel = filepath.Join(dir, filepath.FromSlash(c.KernelPath))
	}
	if c.InitrdPath != "" {
		r.initrd = filepath.Join(dir, filepath.FromSlash(c.InitrdPath))
	}
	for _, f := range []string{r.kernel, r.initrd} {
		if _, err := os.Stat(f); f != "" && err != nil {
			return fmt.Errorf("kernel boot: %s is not in image %s", f, c.Image)
		}
	}
	return nil
}

func firstFile(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("no disk directory: %w", err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			return filepath.Join(dir, e.Name()), nil
		}
	}
	return "", fmt.Errorf("no disk image in %s", dir)
}

// detectFormat asks qemu-img, so a qcow2 named .img is not taken for raw.
func detectFormat(ctx context.Context, path string) (string, error) {
	out, err := exec.CommandContext(ctx, "qemu-img", "info", "--output=json", path).Output()
	if err != nil {
		return "", fmt.Errorf("inspecting %s: %w", path, err)
	}
	if strings.Contains(string(out), `"format": "qcow2"`) {
		return "qcow2", nil
	}
	return "raw", nil
}

func runTool(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
