package virtadmission

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestValidateVMISpecHostAndProbes(t *testing.T) {
	paused := kubevirtv1.StartStrategyPaused
	exec := &kubevirtv1.Probe{Handler: kubevirtv1.Handler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}
	runSpecCases(t, []specCase{
		{"hostname", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Hostname = "Bad_Host" },
			[]metav1.StatusCause{invalid("spec.hostname", "spec.hostname does not conform to the kubernetes DNS_LABEL rules : a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")}},
		{"subdomain", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Subdomain = "-bad-" },
			[]metav1.StatusCause{invalid("spec.subdomain", "spec.subdomain does not conform to the kubernetes DNS_SUBDOMAIN rules : a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")}},
		{"paused with a liveness probe", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.StartStrategy, s.LivenessProbe = &paused, exec },
			[]metav1.StatusCause{invalid("spec.startStrategy", "either spec.startStrategy or spec.livenessProbe should be provided.Pausing VMI with LivenessProbe is not supported")}},
		{"probe without handler", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.ReadinessProbe = &kubevirtv1.Probe{} },
			[]metav1.StatusCause{required("spec.readinessProbe", "either spec.readinessProbe.tcpSocket, spec.readinessProbe.exec or spec.readinessProbe.httpGet must be set if a spec.readinessProbe is specified")}},
		{"TCP probe without the pod network", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.ReadinessProbe = &kubevirtv1.Probe{Handler: kubevirtv1.Handler{TCPSocket: &corev1.TCPSocketAction{}}}
		}, []metav1.StatusCause{invalid("spec.readinessProbe.tcpSocket", "spec.readinessProbe.tcpSocket is only allowed if the Pod Network is attached")}},
		{"DNS policy None without config", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.DNSPolicy = corev1.DNSNone },
			[]metav1.StatusCause{required("spec.dnsConfig", "must provide `dnsConfig` when `dnsPolicy` is None")}},
		{"DNS config", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"x"}, Options: []corev1.PodDNSConfigOption{{}}}
		}, []metav1.StatusCause{invalid("nameservers", "must be valid IP address: x"), invalid("options", "Option.Name must not be empty")}},
		{"eviction strategy", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			es := kubevirtv1.EvictionStrategy("Sometimes")
			s.EvictionStrategy = &es
		}, []metav1.StatusCause{invalid("spec.evictionStrategy", "spec.evictionStrategy is set with an unrecognized option: Sometimes")}},
	}, ValidateVMISpec)
}

func TestValidateVMISpecFirmwareAndDevices(t *testing.T) {
	yes, no := true, false
	runSpecCases(t, []specCase{
		{"kernel arguments without a kernel", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Firmware = &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{KernelArgs: "console=ttyS0"}}
		}, []metav1.StatusCause{invalid("spec.domain.firmware.kernelBoot.kernelArgs", "kernel arguments cannot be provided without an external kernel")}},
		{"kernel container without image or paths", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Firmware = &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{Container: &kubevirtv1.KernelBootContainer{}}}
		}, []metav1.StatusCause{
			required("spec.domain.firmware.kernelBoot.container.image", "spec.domain.firmware.kernelBoot.container must be defined with an image"),
			required("spec.domain.firmware.kernelBoot.container", "spec.domain.firmware.kernelBoot.container must be defined with at least one of the following: kernelPath, initrdPath")}},
		{"secure boot without SMM", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Firmware = &kubevirtv1.Firmware{Bootloader: &kubevirtv1.Bootloader{EFI: &kubevirtv1.EFI{}}}
		}, []metav1.StatusCause{invalid("spec.domain", "spec.domain has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled.")}},
		{"EFI without secure boot", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Firmware = &kubevirtv1.Firmware{Bootloader: &kubevirtv1.Bootloader{EFI: &kubevirtv1.EFI{SecureBoot: &no}}}
		}, nil},
		{"ACPI table from a container disk", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Firmware = &kubevirtv1.Firmware{ACPI: &kubevirtv1.ACPI{SlicNameRef: "root"}}
		}, []metav1.StatusCause{invalid("spec.acpi.slicNameRef", "spec.acpi refers to Volume of unsupported type.")}},
		{"input device", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Inputs = []kubevirtv1.Input{{Name: "m", Type: "mouse", Bus: "ps2"}}
		}, []metav1.StatusCause{invalid("spec.domain.devices.inputs[0].bus", "Input device can have only virtio or usb bus."),
			invalid("spec.domain.devices.inputs[0].type", "Input device can have only tablet type.")}},
		{"sound device", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Sound = &kubevirtv1.SoundDevice{Model: "sb16"}
		},
			[]metav1.StatusCause{invalid("spec.Sound", "Sound device type is not supported. Options: 'ich9' or 'ac97'"),
				invalid("spec.Sound", "Sound device requires a name field.")}},
		{"VSOCK needs its gate", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Devices.AutoattachVSOCK = &yes },
			[]metav1.StatusCause{invalid("spec.domain.devices.autoattachVSOCK", "VSOCK feature gate is not enabled in kubevirt-config")}},
		{"video without a graphics device", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Video, s.Domain.Devices.AutoattachGraphicsDevice = &kubevirtv1.VideoDevice{Type: "vga"}, &no
		}, []metav1.StatusCause{invalid("spec.video", "Video configuration is not allowed when autoattachGraphicsDevice is set to false")}},
		{"reserved memlock overhead needs its gate", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Memory.ReservedOverhead = &kubevirtv1.ReservedOverhead{AddedOverhead: resource.NewQuantity(1<<20, resource.BinarySI)}
		}, []metav1.StatusCause{invalid("spec.domain.memory.reservedOverhead", "Reserved overhead memlock feature gate is not enabled in kubevirt-config")}},
		{"launch security needs its gate", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Architecture = "amd64"
			s.Domain.LaunchSecurity = &kubevirtv1.LaunchSecurity{SEV: &kubevirtv1.SEV{}}
		}, []metav1.StatusCause{invalid("spec.launchSecurity", "WorkloadEncryptionSEV feature gate is not enabled in kubevirt-config")}},
		{"utility volumes", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.UtilityVolumes = []kubevirtv1.UtilityVolume{{Name: "u"}}
		},
			[]metav1.StatusCause{invalid("spec.utilityVolumes", "cannot create VMI with utility volumes in spec, utility volumes can only be added via hotplug")}},
	}, ValidateVMISpec)
}

func TestValidateVMISpecAccessCredentials(t *testing.T) {
	runSpecCases(t, []specCase{
		{"SSH key by cloud-init without a cloud-init volume", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.AccessCredentials = []kubevirtv1.AccessCredential{{SSHPublicKey: &kubevirtv1.SSHPublicKeyAccessCredential{
				Source:            kubevirtv1.SSHPublicKeyAccessCredentialSource{Secret: &kubevirtv1.AccessCredentialSecretSource{SecretName: "k"}},
				PropagationMethod: kubevirtv1.SSHPublicKeyAccessCredentialPropagationMethod{NoCloud: &kubevirtv1.NoCloudSSHPublicKeyAccessCredentialPropagation{}},
			}}}
		}, []metav1.StatusCause{invalid("spec.accessCredentials[0].sshPublicKey.propagationMethod",
			"spec.accessCredentials[0] requires a noCloud volume to exist when the noCloud propagationMethod is in use.")}},
		{"no credential type", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.AccessCredentials = []kubevirtv1.AccessCredential{{}}
		},
			[]metav1.StatusCause{invalid("spec.accessCredentials[0]", "spec.accessCredentials[0] must have exactly one access credential type set")}},
		{"password without source or method", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.AccessCredentials = []kubevirtv1.AccessCredential{{UserPassword: &kubevirtv1.UserPasswordAccessCredential{}}}
		}, []metav1.StatusCause{invalid("spec.accessCredentials[0].userPassword.source", "spec.accessCredentials[0] must have exactly one source set"),
			invalid("spec.accessCredentials[0].userPassword.propagationMethod", "spec.accessCredentials[0] must have exactly one propagationMethod set")}},
	}, ValidateVMISpec)
}
