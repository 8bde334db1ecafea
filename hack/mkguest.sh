#!/usr/bin/env bash
# Builds the test guest from Debian packages, once, into the cache, and
# prints its directory:
#   vmlinuz         the Debian cloud kernel (LZ4, boots in seconds under TCG)
#   initramfs.img   busybox-static; /init loads virtio, prints the contents of
#                   /dev/vda's virtflow-disk.txt if a disk is attached, prints
#                   VIRTFLOW-GUEST-READY and runs a shell on the serial console
#   disk.raw        an 8 MiB ext2 image holding virtflow-disk.txt
set -euo pipefail

pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
if [ -z "$pkg" ]; then
  echo "mkguest: cannot resolve linux-image-cloud-amd64 (run apt-get update)" >&2
  exit 1
fi
dir="${VIRTFLOW_CACHE_DIR:-$HOME/.cache/virtflow}/guest-${pkg#linux-image-}-v1"
if [ -f "$dir/.done" ]; then
  echo "$dir"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "$pkg" >/dev/null 2>&1 && dpkg-deb -x ./*.deb k)
kver=${pkg#linux-image-}
mods="$work/k/lib/modules/$kver/kernel"

root="$work/root"
mkdir -p "$root"/{bin,lib/modules,proc,sys,dev,mnt,tmp}
cp /bin/busybox "$root/bin/busybox"
for m in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev \
         drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/block/virtio_blk; do
  cp "$mods/$m.ko" "$root/lib/modules/"
done
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk; do
  insmod /lib/modules/$m.ko 2>/dev/null
done
sleep 0.2
if [ -b /dev/vda ] && mount -t ext2 -o ro /dev/vda /mnt 2>/dev/null; then
  cat /mnt/virtflow-disk.txt
fi
echo "VIRTFLOW-GUEST-READY"
exec setsid cttyhack /bin/sh
INIT
chmod 0755 "$root/init"

mkdir -p "$dir.partial"
cp "$work/k/boot/vmlinuz-$kver" "$dir.partial/vmlinuz"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$dir.partial/initramfs.img"
mkdir -p "$work/diskroot"
echo "VIRTFLOW-DISK-OK" > "$work/diskroot/virtflow-disk.txt"
mke2fs -q -t ext2 -d "$work/diskroot" "$dir.partial/disk.raw" 8M
chmod 0644 "$dir.partial"/*
rm -rf "$dir"
mv "$dir.partial" "$dir"
touch "$dir/.done"
echo "$dir"
