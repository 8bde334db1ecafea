// Package guestfspod names the libguestfs-tools image: the node imports it
// under this name, virt-api tells `virtctl guestfs` where to find it, and
// the disk tasks run it.
package guestfspod

// Where the image is, in the parts upstream's virtctl composes into
// "<registry>/<prefix>libguestfs-tools:<tag>".
const (
	Registry = "virtflow.local"
	Name     = "libguestfs-tools"
	Tag      = "latest"
	Image    = Registry + "/" + Name + ":" + Tag
)

// AppliancePath holds the image's fixed appliance, where LIBGUESTFS_PATH
// points, as upstream's image has it.
const AppliancePath = "/usr/local/lib/guestfs/appliance"
