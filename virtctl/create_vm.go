package virtctl

import (
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// vmFlags are the `create vm` options, with upstream's names and defaults.
type vmFlags struct {
	name, runStrategy, memory, instancetype, preference string
	grace                                               int64
	containerDisks, pvcs                                []string
	userData, user                                      string
	sshKeys                                             []string
	memorySet                                           bool
	namespace                                           string
}

type repeated struct{ values *[]string }

func (r repeated) String() string     { return "" }
func (r repeated) Set(v string) error { *r.values = append(*r.values, v); return nil }

// createVM prints a VirtualMachine manifest built from flags, for
// `virtctl create vm ... | kubectl create -f -`. It needs no cluster.
func createVM(args []string, namespace string, out io.Writer) error {
	f, err := parseVMFlags(args, namespace)
	if err != nil {
		return err
	}
	vm, err := f.build(f.namespace)
	if err != nil {
		return err
	}
	data, err := yaml.Marshal(vm)
	if err != nil {
		return fmt.Errorf("rendering the VirtualMachine: %w", err)
	}
	_, err = out.Write(data)
	return err
}

func parseVMFlags(args []string, namespace string) (*vmFlags, error) {
	f := &vmFlags{runStrategy: string(kubevirtv1.RunStrategyAlways), memory: "512Mi", grace: 180, namespace: namespace}
	fs := flag.NewFlagSet("create vm", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.namespace, "namespace", f.namespace, "namespace of the VM")
	fs.StringVar(&f.namespace, "n", f.namespace, "namespace of the VM")
	fs.StringVar(&f.name, "name", "", "name of the VM (default: vm-<random>)")
	fs.StringVar(&f.runStrategy, "run-strategy", f.runStrategy, "run strategy of the VM")
	fs.Int64Var(&f.grace, "termination-grace-period", f.grace, "seconds the guest gets to shut down")
	fs.StringVar(&f.memory, "memory", f.memory, "guest memory, when no instancetype is given")
	fs.StringVar(&f.instancetype, "instancetype", "", "[kind/]name of an instancetype")
	fs.StringVar(&f.preference, "preference", "", "[kind/]name of a preference")
	fs.Var(repeated{&f.containerDisks}, "volume-containerdisk", "src:IMAGE[,name:NAME][,bootorder:N] (repeatable)")
	fs.Var(repeated{&f.pvcs}, "volume-pvc", "src:CLAIM[,name:NAME][,bootorder:N] (repeatable)")
	fs.StringVar(&f.userData, "cloud-init-user-data", "", "base64 cloud-init user data")
	fs.StringVar(&f.user, "user", "", "user for generated cloud-init user data")
	fs.Var(repeated{&f.sshKeys}, "ssh-key", "authorized key for generated cloud-init user data (repeatable)")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("create vm takes no arguments, got %q", rest)
	}
	fs.Visit(func(fl *flag.Flag) { f.memorySet = f.memorySet || fl.Name == "memory" })
	if f.memorySet && f.instancetype != "" {
		return nil, errors.New("if any flags in the group [memory instancetype] are set none of the others can be")
	}
	if f.userData != "" && (f.user != "" || len(f.sshKeys) > 0) {
		return nil, errors.New("--cloud-init-user-data cannot be combined with --user or --ssh-key")
	}
	return f, nil
}

func (f *vmFlags) build(namespace string) (*kubevirtv1.VirtualMachine, error) {
	if f.name == "" {
		f.name = "vm-" + randomSuffix()
	}
	strategy := kubevirtv1.VirtualMachineRunStrategy(f.runStrategy)
	vm := &kubevirtv1.VirtualMachine{
		TypeMeta:   metav1.TypeMeta{APIVersion: kubevirtv1.GroupVersion.String(), Kind: "VirtualMachine"},
		ObjectMeta: metav1.ObjectMeta{Name: f.name, Namespace: namespace},
		Spec: kubevirtv1.VirtualMachineSpec{RunStrategy: &strategy, Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{
			Spec: kubevirtv1.VirtualMachineInstanceSpec{TerminationGracePeriodSeconds: &f.grace},
		}},
	}
	if err := f.sizing(vm); err != nil {
		return nil, err
	}
	if err := f.volumes(vm); err != nil {
		return nil, err
	}
	f.cloudInit(vm)
	return vm, nil
}

// sizing takes CPU and memory from an instancetype, else --memory.
func (f *vmFlags) sizing(vm *kubevirtv1.VirtualMachine) error {
	if f.instancetype != "" {
		kind, name, err := prefixedName("instancetype", f.instancetype, "virtualmachineinstancetype", "virtualmachineclusterinstancetype")
		if err != nil {
			return err
		}
		vm.Spec.Instancetype = &kubevirtv1.InstancetypeMatcher{Kind: kind, Name: name}
	} else {
		mem, err := resource.ParseQuantity(f.memory)
		if err != nil {
			return fmt.Errorf("failed to parse \"--memory\" flag: %w", err)
		}
		vm.Spec.Template.Spec.Domain.Memory = &kubevirtv1.Memory{Guest: &mem}
	}
	if f.preference != "" {
		kind, name, err := prefixedName("preference", f.preference, "virtualmachinepreference", "virtualmachineclusterpreference")
		if err != nil {
			return err
		}
		vm.Spec.Preference = &kubevirtv1.PreferenceMatcher{Kind: kind, Name: name}
	}
	return nil
}

func prefixedName(flagName, v string, kinds ...string) (string, string, error) {
	kind, name, found := strings.Cut(v, "/")
	if !found {
		return "", v, nil
	}
	kind = strings.ToLower(kind)
	for _, k := range kinds {
		if kind == k {
			return kind, name, nil
		}
	}
	return "", "", fmt.Errorf("failed to parse \"--%s\" flag: invalid %s kind %q, supported values are: %s", flagName, flagName, kind, strings.Join(kinds, ", "))
}

func (f *vmFlags) volumes(vm *kubevirtv1.VirtualMachine) error {
	spec := &vm.Spec.Template.Spec
	for i, v := range f.containerDisks {
		p, err := volumeParams("volume-containerdisk", v, fmt.Sprintf("%s-containerdisk-%d", vm.Name, i))
		if err != nil {
			return err
		}
		if err := addVolume(spec, p, kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: p.src}}); err != nil {
			return err
		}
	}
	for _, v := range f.pvcs {
		p, err := volumeParams("volume-pvc", v, "")
		if err != nil {
			return err
		}
		src := kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{}}
		src.PersistentVolumeClaim.ClaimName = p.src
		if err := addVolume(spec, p, src); err != nil {
			return err
		}
	}
	return nil
}

type volumeParam struct {
	flag, src, name string
	bootOrder       *uint
}

// volumeParams parses upstream's "key:value,key:value" volume syntax.
func volumeParams(flagName, v, defaultName string) (volumeParam, error) {
	p := volumeParam{flag: flagName, name: defaultName}
	for _, kv := range strings.Split(v, ",") {
		key, val, ok := strings.Cut(kv, ":")
		if !ok {
			return p, fmt.Errorf("failed to parse \"--%s\" flag: params need to have at least one colon: %s", flagName, kv)
		}
		switch key {
		case "src":
			p.src = val
		case "name":
			p.name = val
		case "bootorder":
			n, err := strconv.ParseUint(val, 10, 32)
			if err != nil || n == 0 {
				return p, fmt.Errorf("failed to parse \"--%s\" flag: bootorder must be a number greater than 0", flagName)
			}
			order := uint(n)
			p.bootOrder = &order
		default:
			return p, fmt.Errorf("failed to parse \"--%s\" flag: unknown param(s): %s", flagName, kv)
		}
	}
	if p.src == "" {
		return p, fmt.Errorf("failed to parse \"--%s\" flag: src must be specified", flagName)
	}
	if p.name == "" {
		p.name = p.src
	}
	if errs := validation.IsDNS1123Label(p.name); len(errs) > 0 {
		return p, fmt.Errorf("failed to parse \"--%s\" flag: invalid name %q: %s", flagName, p.name, strings.Join(errs, ","))
	}
	return p, nil
}

func addVolume(spec *kubevirtv1.VirtualMachineInstanceSpec, p volumeParam, src kubevirtv1.VolumeSource) error {
	for _, v := range spec.Volumes {
		if v.Name == p.name {
			return fmt.Errorf("failed to parse \"--%s\" flag: there is already a volume with name %q", p.flag, p.name)
		}
	}
	spec.Volumes = append(spec.Volumes, kubevirtv1.Volume{Name: p.name, VolumeSource: src})
	if p.bootOrder != nil {
		for _, d := range spec.Domain.Devices.Disks {
			if d.BootOrder != nil && *d.BootOrder == *p.bootOrder {
				return fmt.Errorf("failed to parse \"--%s\" flag: bootorder %d was specified multiple times", p.flag, *p.bootOrder)
			}
		}
		spec.Domain.Devices.Disks = append(spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: p.name, BootOrder: p.bootOrder})
	}
	return nil
}

// cloudInit adds a NoCloud disk from --cloud-init-user-data, or one
// generated from --user and --ssh-key.
func (f *vmFlags) cloudInit(vm *kubevirtv1.VirtualMachine) {
	data := f.userData
	if data == "" && (f.user != "" || len(f.sshKeys) > 0) {
		var b strings.Builder
		b.WriteString("#cloud-config\n")
		if f.user != "" {
			fmt.Fprintf(&b, "user: %s\n", f.user)
		}
		if len(f.sshKeys) > 0 {
			b.WriteString("ssh_authorized_keys:\n")
			for _, k := range f.sshKeys {
				fmt.Fprintf(&b, "  - %s\n", k)
			}
		}
		data = base64.StdEncoding.EncodeToString([]byte(b.String()))
	}
	if data == "" {
		return
	}
	spec := &vm.Spec.Template.Spec
	spec.Volumes = append(spec.Volumes, kubevirtv1.Volume{Name: "cloudinitdisk", VolumeSource: kubevirtv1.VolumeSource{
		CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserDataBase64: data},
	}})
}

func randomSuffix() string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))]
	}
	return string(b)
}
