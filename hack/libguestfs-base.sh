#!/usr/bin/env bash
# Builds the libguestfs-tools image's root filesystem, once per package
# list, into the cache, and prints the path of its tarball: Debian
# bookworm's libguestfs tools with a fixed appliance in
# /usr/local/lib/guestfs/appliance, where `virtctl guestfs` (and the disk
# Tekton tasks) point LIBGUESTFS_PATH, so no appliance is assembled when a
# pod starts. The kernel the appliance was made from is removed afterwards:
# the appliance holds its own copy. Documentation, manual pages and
# translations are left out.
set -euo pipefail

packages=(libguestfs-tools linux-image-amd64 bash)
suite=bookworm
key=$(printf '%s\n' "$suite" "${packages[@]}" v2 | sha256sum | cut -c1-12)
dir="${VIRTFLOW_CACHE_DIR:-$HOME/.cache/virtflow}/libguestfs-base-$key"
if [ -f "$dir/rootfs.tar" ]; then
  echo "$dir/rootfs.tar"
  exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
include=$(IFS=,; echo "${packages[*]}")
appliance=/usr/local/lib/guestfs/appliance
# The appliance's root is a 4 GiB ext2 image, mostly empty, which a layer
# would store whole: shrunk to its contents plus room for what the
# appliance writes at boot (it writes through an overlay, but into free
# blocks of this filesystem).
shrink='e2fsck -fy "$1" >/dev/null || [ $? -le 1 ]; resize2fs -M "$1" 2>/dev/null; truncate -s +256M "$1"; resize2fs "$1" 2>/dev/null'
# A partial tarball never looks finished: written aside, then renamed.
mmdebstrap --quiet --format=tar --variant=essential --include="$include" \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="chroot \"\$1\" libguestfs-make-fixed-appliance $appliance" \
  --customize-hook="chroot \"\$1\" sh -ec '$shrink' sh $appliance/root" \
  --customize-hook="touch \"\$1\"$appliance/done" \
  --customize-hook='rm -rf "$1"/boot/vmlinuz* "$1"/boot/initrd.img* "$1"/usr/lib/modules "$1"/var/tmp/.guestfs-*' \
  "$suite" "$dir/rootfs.tar.partial" \
  "deb http://deb.debian.org/debian $suite main" \
  "deb http://deb.debian.org/debian $suite-updates main" \
  "deb http://deb.debian.org/debian-security $suite-security main" >&2
mv "$dir/rootfs.tar.partial" "$dir/rootfs.tar"
echo "$dir/rootfs.tar"
