//go:build integration

package integration

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/libvirt/domain"
)

func testGuestVMI(name string) *kubevirtv1.VirtualMachineInstance {
	mem := resource.MustParse("256Mi")
	grace := int64(2)
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("0c9b5e9e-1111-4000-8000-00000000000" + name[len(name)-1:])},
		Spec: kubevirtv1.VirtualMachineInstanceSpec{
			TerminationGracePeriodSeconds: &grace,
			Domain: kubevirtv1.DomainSpec{
				Memory: &kubevirtv1.Memory{Guest: &mem},
				Firmware: &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{
					KernelArgs: "console=ttyS0 quiet",
					Container:  &kubevirtv1.KernelBootContainer{Image: guestImage, KernelPath: "/boot/vmlinuz", InitrdPath: "/boot/initramfs.img"},
				}},
				Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{Name: "root"}}},
			},
			Volumes: []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{
				ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: guestImage},
			}}},
		},
	}
}

// TestLauncherBootsTheTestGuestUnderSessionLibvirt runs one launcher with a
// real session-mode libvirtd as an unprivileged user and a real qemu guest.
func TestLauncherBootsTheTestGuestUnderSessionLibvirt(t *testing.T) {
	store := imageStore(t)
	dir := filepath.Join(env.dir, "launchers", "vm1")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	cacheDir := filepath.Join(env.dir, "libvirt-cache")
	vmi := testGuestVMI("vm1")
	// The disk the guest reads comes from the path, not /disk.
	vmi.Spec.Volumes[0].ContainerDisk.Path = "/alt/disk.raw"
	require.NoError(t, launcher.WriteConfig(launcher.Config{
		VMI: *vmi, Dir: dir, DomainType: domain.TCG, UID: 65534, GID: 65534, CacheDir: cacheDir, ImageStore: store,
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- launcher.Run(ctx, dir) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Error("launcher did not stop")
		}
	}()

	serial := filepath.Join(dir, launcher.SerialLog)
	waitForText(t, serial, guestReady, 3*time.Minute)
	waitForText(t, serial, guestDiskOK, time.Second)

	c := launcher.NewClient(dir)
	st, err := c.Status(context.Background())
	require.NoError(t, err)
	require.Equal(t, libvirt.Running, st.State)
	require.Equal(t, "default_vm1", st.Domain)

	console, err := c.Stream(context.Background(), launcher.ConsoleStream)
	require.NoError(t, err)
	_, err = io.WriteString(console, "\necho ANSWER-$((6*7))\n")
	require.NoError(t, err)
	require.True(t, readUntil(console, "ANSWER-42", 30*time.Second), "the guest did not answer on its console")
	console.Close()

	require.Eventually(t, func() bool {
		st, err := c.Status(context.Background())
		return err == nil && st.AgentConnected
	}, time.Minute, 200*time.Millisecond, "the test guest's agent never connected")
	gi, err := c.GuestInfo(context.Background())
	require.NoError(t, err)
	require.Equal(t, "virtflow-test-guest", gi.OS.ID)
	require.Equal(t, "virtflow-guest", gi.Hostname)
	require.Contains(t, gi.OS.KernelRelease, "cloud-amd64", "the agent reports the guest's own uname")
	require.Equal(t, "UTC", gi.TimeZone)

	vnc, err := c.Stream(context.Background(), launcher.VNCStream)
	require.NoError(t, err)
	require.True(t, readUntil(vnc, "RFB 003.008", 10*time.Second), "the VNC display did not greet with the RFB protocol version")
	vnc.Close()

	require.NoError(t, c.Command(context.Background(), "pause"))
	st, err = c.Status(context.Background())
	require.NoError(t, err)
	require.Equal(t, libvirt.Paused, st.State)
	require.NoError(t, c.Command(context.Background(), "unpause"))

	cancel()
	require.NoError(t, <-done)
	done <- nil
	final, err := launcher.ReadStatus(dir)
	require.NoError(t, err)
	require.True(t, final.Exited)
}

func readUntil(r io.Reader, text string, timeout time.Duration) bool {
	found := make(chan bool, 1)
	go func() {
		var seen strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			seen.Write(buf[:n])
			if strings.Contains(seen.String(), text) {
				found <- true
				return
			}
			if err != nil {
				found <- false
				return
			}
		}
	}()
	select {
	case ok := <-found:
		return ok
	case <-time.After(timeout):
		return false
	}
}
