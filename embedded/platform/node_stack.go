package platform

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/addons"
	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/hostnet"
	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/embedded/kubenode"
	"github.com/virtflow/virtflow/wire/guestfspod"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// NodeBridge is the embedded node's bridge: its address is the node IP and
// what kube-apiserver serves on; its prefix is the pod network.
var NodeBridge = hostnet.Bridge{Name: "virtflow0", Address: netip.MustParsePrefix("10.244.0.1/24")}

// CSIProvisionerRepository is where kubernetes-csi's external-provisioner,
// built from its module, is imported.
const CSIProvisionerRepository = "virtflow.local/csi-provisioner"

// ServiceCIDR is where ClusterIPs come from; cluster DNS takes its tenth.
const ServiceCIDR = "10.96.0.0/24"

// nodeTools are the cached builds the node runs.
type nodeTools struct {
	kube, containerd, dns, registry, csi, csiVersion string
	// multus holds Multus's thin plugin, of multusVersion.
	multus, multusVersion string
	// tekton is Tekton Pipelines' images and manifests; nil when up
	// installs no Tekton.
	tekton *addons.TektonPipelines
}

func ensureNodeTools(ctx context.Context, o Options, say func(string)) (nodeTools, error) {
	var t nodeTools
	var err error
	if t.kube, err = binaries.Ensure(ctx, o.ToolsDir, o.CacheDir, say); err != nil {
		return t, err
	}
	tools := filepath.Dir(o.ToolsDir)
	if t.containerd, err = binaries.EnsureContainerd(ctx, filepath.Join(tools, "containerd"), o.CacheDir, say); err != nil {
		return t, err
	}
	if t.dns, err = binaries.EnsureCoreDNS(ctx, filepath.Join(tools, "coredns"), o.CacheDir, say); err != nil {
		return t, err
	}
	t.registry, err = binaries.EnsureRegistry(ctx, filepath.Join(tools, "registry"), o.CacheDir, say)
	return t, err
}

// ensureCSIProvisioner adds the external-provisioner build, which only a
// start imports (a purge does not need it).
func (t *nodeTools) ensureCSIProvisioner(ctx context.Context, o Options, say func(string)) error {
	var err error
	t.csi, t.csiVersion, err = binaries.EnsureCSIProvisioner(ctx, filepath.Join(filepath.Dir(o.ToolsDir), "csi"), o.CacheDir, say)
	return err
}

// nodeImages are the images the node imports: the platform's, the
// add-ons' and Tekton's, each packed through the layer cache.
func (p *Platform) nodeImages(t nodeTools, addonImages ...images.Image) ([]images.Image, error) {
	o := p.opts
	launcher, err := launcherImage(o)
	if err != nil {
		return nil, err
	}
	comps, err := componentsImage(launcher.BaseTars)
	if err != nil {
		return nil, err
	}
	p.componentsImage = comps.Ref
	cli, err := cliDownloadsImage(comps, o.CLIDownloads)
	if err != nil {
		return nil, err
	}
	p.cliDownloadsImage = cli.Ref
	guestfs, err := libguestfsImage(o)
	if err != nil {
		return nil, err
	}
	provisioner := images.Command(CSIProvisionerRepository+":"+t.csiVersion, filepath.Join(t.csi, "csi-provisioner"), "/csi-provisioner", "")
	p.csiProvisionerImage = provisioner.Ref
	tasks, diskVirt, err := tektonTasksImages(guestfs)
	if err != nil {
		return nil, err
	}
	p.tektonTasksImage, p.tektonTasksDiskVirtImage = tasks.Ref, diskVirt.Ref
	multus, err := multusImage(t, launcher.BaseTars)
	if err != nil {
		return nil, err
	}
	p.multusImage = multus.Ref
	all := append([]images.Image{launcher, comps, cli, provisioner, guestfs, tasks, diskVirt, multus}, addonImages...)
	if t.tekton != nil {
		all = append(all, t.tekton.Images...)
	}
	for i := range all {
		all[i].CacheDir = filepath.Join(o.CacheDir, "image-layers")
	}
	return all, nil
}

// ensureTekton adds Tekton Pipelines' build, images and manifests.
func (t *nodeTools) ensureTekton(ctx context.Context, o Options, say func(string)) error {
	bin, version, err := binaries.EnsureTekton(ctx, filepath.Join(filepath.Dir(o.ToolsDir), "tekton"), o.CacheDir, say)
	if err != nil {
		return err
	}
	src, err := binaries.TektonSource(ctx, version)
	if err != nil {
		return err
	}
	tekton, err := addons.Tekton(bin, src, version, addons.TektonShell)
	if err != nil {
		return err
	}
	t.tekton = &tekton
	return nil
}

// nodeConfig is the embedded node, for a start or a purge.
func nodeConfig(o Options, t nodeTools) kubenode.Config {
	return kubenode.Config{
		Name: NodeName, DataDir: filepath.Join(o.DataDir, "node"),
		KubeBinDir: t.kube, ContainerdBinDir: t.containerd, Bridge: NodeBridge,
	}
}

// startNode starts the kubelet, containerd and kube-proxy with the images
// the platform runs, then cluster DNS and the registry, and publishes the
// test guest there.
func (p *Platform) startNode(ctx context.Context, t nodeTools) error {
	o := p.opts
	dnsIP, err := addons.DNSServiceIP(ServiceCIDR)
	if err != nil {
		return err
	}
	regCreds, err := p.cp.RegistryCredentials(NodeBridge.Address.Addr().AsSlice())
	if err != nil {
		return err
	}
	registry, err := addons.Registry(t.registry, filepath.Join(o.DataDir, "registry"), NodeName, regCreds)
	if err != nil {
		return err
	}
	dns := addons.ClusterDNS(t.dns, dnsIP, NodeBridge.Address.Addr().String())
	cfg := nodeConfig(o, t)
	if cfg.Credentials, err = p.cp.NodeCredentials(NodeName, NodeBridge.Address.Addr().AsSlice()); err != nil {
		return err
	}
	cfg.PauseBinary, cfg.ClusterDNS = siblingBinary("pause"), dnsIP
	if cfg.Images, err = p.nodeImages(t, dns.Image, registry.Image); err != nil {
		return err
	}
	cfg.ClusterCIDR = ClusterCIDR
	p.nodeCfg = cfg
	p.say("starting node " + NodeName + " (containerd, kubelet, kube-proxy) on " + NodeBridge.Name + " " + NodeBridge.Address.String())
	started := time.Now()
	if p.node, err = kubenode.Start(ctx, cfg); err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(p.cp.RESTConfig())
	if err != nil {
		return fmt.Errorf("connecting to kube-apiserver: %w", err)
	}
	if err := p.node.WaitReady(ctx, cs); err != nil {
		return err
	}
	if err := p.node.LabelWorker(ctx, cs); err != nil {
		return err
	}
	p.sayNodeReady(NodeName, started)
	count, err := nodeCount(o)
	if err != nil {
		return err
	}
	if err := p.startExtraNodes(ctx, t, count, cs); err != nil {
		return err
	}
	p.say("installing cluster DNS and the node's registry")
	admin, err := newKubeClient(p.cp.RESTConfig())
	if err != nil {
		return err
	}
	if err := addons.InstallAll(ctx, admin, dns, registry); err != nil {
		return err
	}
	if err := p.installTekton(ctx, admin, t.tekton); err != nil {
		return err
	}
	if o.TestGuestDir == "" {
		return nil
	}
	return PushTestGuest(o.TestGuestDir, p.node.RegistryPushAddress(), regCreds)
}

// installTekton applies Tekton Pipelines and waits for its controller and
// webhook; nothing when up installs no Tekton.
func (p *Platform) installTekton(ctx context.Context, admin client.Client, tekton *addons.TektonPipelines) error {
	if tekton == nil {
		return nil
	}
	p.say("installing Tekton Pipelines " + tekton.Version)
	if err := tekton.Install(ctx, admin); err != nil {
		return err
	}
	return tekton.WaitReady(ctx, admin)
}

// libguestfsImage is Debian's libguestfs tools with a fixed appliance
// (hack/libguestfs-base.sh), run by `virtctl guestfs`, whose pod runs
// /entrypoint.sh as upstream's image has it: a shell. Its user is the
// launchers' qemu user, which owns the disk images.
func libguestfsImage(o Options) (images.Image, error) {
	base, err := baseTarball(o.LibguestfsBase, "hack/libguestfs-base.sh", "the libguestfs-tools image")
	if err != nil {
		return images.Image{}, err
	}
	user := strconv.Itoa(launcherpod.User)
	return images.Image{
		Ref: guestfspod.Image, BaseTars: []string{base},
		Layers:     [][]images.Entry{{{Path: "/entrypoint.sh", Data: []byte("#!/bin/bash -xe\n\n/bin/bash\n"), Mode: 0o755}}},
		Entrypoint: []string{"/entrypoint.sh"}, User: user + ":" + user,
	}, nil
}

// baseTarball is given, else what script builds (once) and names.
func baseTarball(given, script, what string) (string, error) {
	if given != "" {
		return given, nil
	}
	// Its progress and errors go to the user: a base takes minutes.
	cmd := exec.Command(script)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("building %s base (%s): %w", what, script, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// launcherImage is the launcher's base (Debian's libvirt and QEMU, built by
// hack/launcher-base.sh) with the virt-launcher beside this binary.
func launcherImage(o Options) (images.Image, error) {
	base, err := baseTarball(o.LauncherBase, "hack/launcher-base.sh", "the launcher image")
	if err != nil {
		return images.Image{}, err
	}
	bin := siblingBinary("virt-launcher")
	if _, err := os.Stat(bin); err != nil {
		return images.Image{}, fmt.Errorf("the launcher image needs virt-launcher beside virtflow (make up builds both): %w", err)
	}
	return images.Image{
		Ref: launcherpod.Image, BaseTars: []string{base},
		Layers: [][]images.Entry{{{Path: "/usr/bin/virt-launcher", Source: bin, Mode: 0o755}}},
	}, nil
}

// componentsImage is the image every component pod runs: the launcher's
// base, whose libvirt client library virt-handler links, with this very
// virtflow binary. Its tag is the binary's digest, so a rebuilt binary
// rolls the components out.
func componentsImage(base []string) (images.Image, error) {
	self, err := os.Executable()
	if err != nil {
		return images.Image{}, fmt.Errorf("finding the virtflow binary: %w", err)
	}
	f, err := os.Open(self)
	if err != nil {
		return images.Image{}, fmt.Errorf("reading the virtflow binary: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return images.Image{}, fmt.Errorf("reading the virtflow binary: %w", err)
	}
	return images.Image{
		Ref: fmt.Sprintf("%s:%x", ComponentsRepository, h.Sum(nil)[:6]), BaseTars: base,
		Layers: [][]images.Entry{{{Path: "/usr/bin/virtflow", Source: self, Mode: 0o755}}},
	}, nil
}

// ComponentsRepository is the components image's name, tagged per build.
const ComponentsRepository = "virtflow.local/virtflow"

// TestGuestImage is the test guest's repository in the node's registry;
// containerDisks name it registry.virtflow.local/virtflow/test-guest:latest.
const TestGuestImage = "virtflow/test-guest:latest"

// PushTestGuest publishes the test guest (hack/mkguest.sh's output) to the
// node registry's push endpoint as the containerDisk TestGuestImage: the
// disk under /disk, as KubeVirt's containerDisks have it, the kernel and
// initramfs under /boot for kernel boot; and its EFI disk alone as
// TestGuestEFIImage.
func PushTestGuest(dir, pushAddr string, creds controlplane.RegistryCredentials) error {
	img := images.Image{
		Layers: [][]images.Entry{{
			{Path: "/disk/disk.raw", Source: filepath.Join(dir, "disk.raw"), Mode: 0o444},
			{Path: "/boot/vmlinuz", Source: filepath.Join(dir, "vmlinuz"), Mode: 0o444},
			{Path: "/boot/initramfs.img", Source: filepath.Join(dir, "initramfs.img"), Mode: 0o444},
		}},
	}
	if err := addons.Push(img, pushAddr, TestGuestImage, creds); err != nil {
		return err
	}
	efi := filepath.Join(dir, "disk-efi.raw")
	if _, err := os.Stat(efi); err != nil {
		return nil // a guest built before the EFI disk existed
	}
	return addons.Push(images.Image{Layers: [][]images.Entry{{{Path: "/disk/disk.raw", Source: efi, Mode: 0o444}}}},
		pushAddr, TestGuestEFIImage, creds)
}

// TestGuestEFIImage is the test guest that boots under UEFI Secure Boot
// (hack/mkguest.sh's disk-efi.raw) as a containerDisk.
const TestGuestEFIImage = "virtflow/test-guest-efi:latest"

// siblingBinary is a binary built beside this one.
func siblingBinary(name string) string {
	self, err := os.Executable()
	if err != nil {
		return name
	}
	return filepath.Join(filepath.Dir(self), name)
}
