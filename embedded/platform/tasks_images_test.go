package platform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/embedded/images"
)

// TestTektonTasksImagesRunTheStepProgramsByUpstreamsNames checks both step
// images: the commands the Task YAMLs run lead to the step programs, the
// tasks image runs as a non-root user, and the disk-virt one is the
// libguestfs image with them on top.
func TestTektonTasksImagesRunTheStepProgramsByUpstreamsNames(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(filepath.Dir(self), tasksBinary)
	require.NoError(t, os.WriteFile(bin, []byte("step programs"), 0o755))
	t.Cleanup(func() { _ = os.Remove(bin) })
	guestfs := images.Image{Ref: "virtflow.local/libguestfs-tools:latest", BaseTars: []string{"/cache/libguestfs.tar"},
		Layers: [][]images.Entry{{{Path: "/entrypoint.sh", Data: []byte("#!/bin/bash\n"), Mode: 0o755}}}, User: "65534:65534"}

	tasks, diskVirt, err := tektonTasksImages(guestfs)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tasks.Ref, TektonTasksRepository+":"))
	_, tag, _ := strings.Cut(tasks.Ref, ":")
	require.Equal(t, TektonTasksDiskVirtRepository+":"+tag, diskVirt.Ref, "one tag: the step programs' digest")
	require.Equal(t, "1001", tasks.User)
	links := map[string]string{}
	for _, e := range tasks.Layers[0] {
		if e.Link != "" {
			links[e.Path] = e.Link
		}
	}
	for _, c := range []string{"create-vm", "copy-template", "modify-vm-template", "modify-data-object", "entrypoint"} {
		require.Equal(t, "/usr/bin/"+tasksBinary, links["/usr/local/bin/"+c], c)
	}
	require.Equal(t, guestfs.BaseTars, diskVirt.BaseTars)
	require.Len(t, diskVirt.Layers, 2, "guestfs's layer, then the step programs")
	require.Equal(t, "65534:65534", diskVirt.User, "the disk images' owner customizes them")
	require.Len(t, guestfs.Layers, 1, "guestfs's own image is unchanged")

	require.NoError(t, os.WriteFile(bin, []byte("rebuilt step programs"), 0o755))
	again, _, err := tektonTasksImages(guestfs)
	require.NoError(t, err)
	require.NotEqual(t, tasks.Ref, again.Ref, "a rebuilt binary changes the tag")
}
