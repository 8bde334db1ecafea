//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
)

// secureBootVMI boots the test guest's EFI disk (shim, GRUB and the
// kernel, all signed) with Secure Boot, SMM and a TPM.
func secureBootVMI(ns string) *kubevirtv1.VirtualMachineInstance {
	// OVMF with SMM and the kernel's EFI stub need more than the BIOS
	// guest's 256Mi: with that, the stub resets the guest.
	mem := resource.MustParse("512Mi")
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "secure"},
		Spec: kubevirtv1.VirtualMachineInstanceSpec{
			TerminationGracePeriodSeconds: ptr.To(int64(2)),
			Domain: kubevirtv1.DomainSpec{
				Memory:   &kubevirtv1.Memory{Guest: &mem},
				Features: &kubevirtv1.Features{SMM: &kubevirtv1.FeatureState{}},
				Firmware: &kubevirtv1.Firmware{Bootloader: &kubevirtv1.Bootloader{EFI: &kubevirtv1.EFI{SecureBoot: ptr.To(true)}}},
				Devices: kubevirtv1.Devices{
					Disks: []kubevirtv1.Disk{{Name: "root"}},
					TPM:   &kubevirtv1.TPMDevice{},
					Rng:   &kubevirtv1.Rng{},
				},
			},
			Volumes: []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{
				ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "registry.virtflow.local/" + platform.TestGuestEFIImage},
			}}},
		},
	}
}

// TestAGuestBootsThroughOVMFWithSecureBootAndATPM boots a VMI from a GPT
// disk through OVMF with Secure Boot and a swtpm TPM, as the common
// templates' RHEL 9 and Windows VMs ask: the guest says it came up under
// EFI with Secure Boot enabled and sees /dev/tpm0. The serial console is
// read from upstream's guest-console-log container.
func TestAGuestBootsThroughOVMFWithSecureBootAndATPM(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	v := secureBootVMI(n.namespace(t))
	require.NoError(t, n.c.Create(ctx, v))
	key := crclient.ObjectKeyFromObject(v)
	require.Eventually(t, func() bool { return vmiPhase(n.c, key) == kubevirtv1.Running }, 3*time.Minute, 500*time.Millisecond,
		"the VMI never ran (phase %q)", vmiPhase(n.c, key))
	require.NoError(t, n.c.Get(ctx, key, v))
	pod := launcherPodOf(t, n.c, v)
	var serial string
	for deadline := time.Now().Add(4 * time.Minute); !strings.Contains(serial, guestReady); time.Sleep(2 * time.Second) {
		if time.Now().After(deadline) {
			t.Fatalf("the guest never came up through OVMF; its console ends:\n%s", tail(serial, 1500))
		}
		out, _ := n.kubectl("logs", "-n", pod.Namespace, pod.Name, "-c", "guest-console-log").CombinedOutput()
		serial = string(out)
	}
	require.Contains(t, serial, "secureboot: Secure boot enabled", "the kernel saw Secure Boot on")
	require.Contains(t, serial, "VIRTFLOW-GUEST-FIRMWARE efi secureboot=on tpm=yes")
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
