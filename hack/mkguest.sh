#!/usr/bin/env bash
# Builds the test guest from Debian packages, once, into the cache, and
# prints its directory:
#   vmlinuz         the Debian cloud kernel (LZ4, boots in seconds under TCG)
#   initramfs.img   busybox-static; /init loads virtio, prints the contents of
#                   /dev/vda's virtflow-disk.txt if a disk is attached, starts a
#                   minimal guest agent on the org.qemu.guest_agent.0 port
#                   (guest info, users, filesystems, fsfreeze, reboot),
#                   joins the network (virtio-net, busybox udhcpc: address,
#                   routes, DNS and host name from DHCP; prints
#                   VIRTFLOW-GUEST-IP <address>), serves HTTP on :80 (busybox
#                   httpd; / answers VIRTFLOW-GUEST-HTTP <host name>) and ssh
#                   on :22 (Debian's dropbear, root's keys taken from the
#                   ssh_authorized_keys and meta-data public-keys of a
#                   cloud-init NoCloud disk),
#                   prints VIRTFLOW-GUEST-READY and runs a shell on the serial
#                   console
#   disk.raw        a 24 MiB ext2 image (no partition table) holding
#                   virtflow-disk.txt, laid out as a tiny Linux root (/etc
#                   with fstab and os-release, /bin/sh) so libguestfs's
#                   inspection finds an operating system on it and
#                   virt-customize / virt-sysprep accept it; it also boots
#                   by itself: EXTLINUX in its boot block loads the same
#                   kernel and initramfs from /boot, so a VM that names only
#                   this disk (an instance type and a DataSource, as the
#                   web console creates) boots under BIOS firmware too
#   disk-efi.raw    a GPT disk whose EFI system partition boots the same
#                   kernel and initramfs as a distribution does under UEFI
#                   Secure Boot: Debian's shim (signed by Microsoft's UEFI
#                   CA) as \EFI\BOOT\BOOTX64.EFI, Debian's signed GRUB, and
#                   the cloud kernel, which Debian signs
# Before VIRTFLOW-GUEST-READY the guest prints
#   VIRTFLOW-GUEST-FIRMWARE <bios|efi> secureboot=<on|off> tpm=<yes|no>
set -euo pipefail

pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
if [ -z "$pkg" ]; then
  echo "mkguest: cannot resolve linux-image-cloud-amd64 (run apt-get update)" >&2
  exit 1
fi
dir="${VIRTFLOW_CACHE_DIR:-$HOME/.cache/virtflow}/guest-${pkg#linux-image-}-v10"
if [ -f "$dir/.done" ]; then
  echo "$dir"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "$pkg" >/dev/null 2>&1 && dpkg-deb -x ./*.deb k)
# dropbear and the libraries it links that the host may not have.
(cd "$work" && mkdir debs && cd debs && apt-get download dropbear-bin libtomcrypt1 libtommath1 >/dev/null 2>&1 &&
  for d in ./*.deb; do dpkg-deb -x "$d" ../sshroot; done)
kver=${pkg#linux-image-}
mods="$work/k/lib/modules/$kver/kernel"

root="$work/root"
mkdir -p "$root"/{bin,sbin,lib/modules,proc,sys,dev,mnt,tmp,etc,root/.ssh,www,cidata,etc/dropbear,var/run}
chmod 0700 "$root/root" "$root/root/.ssh"
cp /bin/busybox "$root/bin/busybox"
for m in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev \
         drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/block/virtio_blk \
         drivers/char/virtio_console net/core/failover drivers/net/net_failover drivers/net/virtio_net \
         drivers/cdrom/cdrom fs/isofs/isofs; do
  cp "$mods/$m.ko" "$root/lib/modules/"
done
# dropbear with every library it loads, found as the loader would.
cp "$work/sshroot/usr/sbin/dropbear" "$root/sbin/dropbear"
LD_LIBRARY_PATH="$work/sshroot/usr/lib/x86_64-linux-gnu" ldd "$work/sshroot/usr/sbin/dropbear" |
  awk '/=> \//{print $3}' | while read -r lib; do
    mkdir -p "$root$(dirname "${lib#"$work/sshroot"}")"
    cp -L "$lib" "$root${lib#"$work/sshroot"}"
  done
mkdir -p "$root/lib64" && cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
printf '/bin/sh\n' > "$root/etc/shells"
# udhcpc's hook: the address, the default route, DNS and the host name the
# DHCP server hands out.
cat > "$root/bin/udhcpc-hook" <<'HOOK'
#!/bin/busybox sh
case "$1" in
  deconfig) ip -4 addr flush dev "$interface"; ip link set "$interface" up ;;
  bound|renew)
    ip -4 addr flush dev "$interface"
    ip addr add "$ip/${mask:-24}" dev "$interface"
    [ -n "$mtu" ] && ip link set dev "$interface" mtu "$mtu"
    for r in $router; do ip route replace default via "$r" dev "$interface"; break; done
    : > /etc/resolv.conf
    [ -n "$domain" ] && echo "search $domain" >> /etc/resolv.conf
    for d in $dns; do echo "nameserver $d" >> /etc/resolv.conf; done
    [ -n "$hostname" ] && hostname "$hostname"
    echo "VIRTFLOW-GUEST-HTTP $(hostname)" > /www/index.html
    echo "VIRTFLOW-GUEST-IP $ip" > /dev/console ;;
esac
HOOK
chmod 0755 "$root/bin/udhcpc-hook"
# A NoCloud disk's ssh_authorized_keys, as cloud-init would install them.
cat > "$root/bin/nocloud-keys" <<'KEYS'
#!/bin/busybox sh
for dev in /dev/vd? /dev/sr?; do
  [ -b "$dev" ] || continue
  mount -t iso9660 -o ro "$dev" /cidata 2>/dev/null || continue
  if [ -f /cidata/user-data ]; then
    awk '/^ssh_authorized_keys:/{on=1; next} on && /^[ \t]*-/{sub(/^[ \t]*-[ \t]*/, ""); print; next} {on=0}' /cidata/user-data |
      sed -e 's/^["]//' -e 's/["]$//' -e "s/^[']//" -e "s/[']$//" >> /root/.ssh/authorized_keys
  fi
  # Access credentials come as meta-data's public-keys (JSON).
  if [ -f /cidata/meta-data ]; then
    sed -n 's/.*"public-keys":{\([^}]*\)}.*/\1/p' /cidata/meta-data | tr ',' '\n' |
      sed -n 's/^"[0-9]*":"\(.*\)"$/\1/p' >> /root/.ssh/authorized_keys
  fi
  umount /cidata
done
chmod 0600 /root/.ssh/authorized_keys 2>/dev/null
KEYS
chmod 0755 "$root/bin/nocloud-keys"
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk virtio_console \
         failover net_failover virtio_net cdrom isofs; do
  insmod /lib/modules/$m.ko 2>/dev/null
done
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
hostname virtflow-guest
echo "VIRTFLOW-GUEST-HTTP virtflow-guest" > /www/index.html
ip link set lo up
/bin/virtflow-agent &
/bin/nocloud-keys
# Every NIC comes up (IPv6 link-local addresses need nothing more); each
# asks DHCP, which answers on the networks that hand out addresses.
for nic in /sys/class/net/eth*; do
  [ -e "$nic" ] || continue
  ip link set "${nic##*/}" up
  udhcpc -i "${nic##*/}" -s /bin/udhcpc-hook -b -t 20 -T 1 >/dev/null 2>&1
done
httpd -p 80 -h /www
/sbin/dropbear -R -E -p 22 2>/dev/null
sleep 0.2
if [ -b /dev/vda ] && mount -t ext2 -o ro /dev/vda /mnt 2>/dev/null; then
  cat /mnt/virtflow-disk.txt
fi
fw=bios; [ -d /sys/firmware/efi ] && fw=efi
sb=off; dmesg | grep -q "Secure boot enabled" && sb=on
tpm=no; [ -e /dev/tpm0 ] && tpm=yes
echo "VIRTFLOW-GUEST-FIRMWARE $fw secureboot=$sb tpm=$tpm"
echo "VIRTFLOW-GUEST-READY"
exec setsid cttyhack /bin/sh
INIT
chmod 0755 "$root/init"

# Just enough of the QEMU guest agent protocol for libvirt: guest-sync,
# OS, host name, time zone, users (root, logged in on the console since
# the agent started), filesystems (/mnt when the disk is mounted),
# fsfreeze and guest-shutdown; one JSON line each way.
cat > "$root/bin/virtflow-agent" <<'AGENT'
#!/bin/busybox sh
osinfo='{"id":"virtflow-test-guest","name":"Virtflow Test Guest","pretty-name":"Virtflow Test Guest (busybox)","version":"2","version-id":"2","kernel-release":"'"$(uname -r)"'","kernel-version":"'"$(uname -v)"'","machine":"'"$(uname -m)"'"}'
port() {
  for p in /sys/class/virtio-ports/*; do
    if [ "$(cat "$p/name" 2>/dev/null)" = org.qemu.guest_agent.0 ]; then echo "/dev/${p##*/}"; fi
  done
}
started=$(date +%s)
frozen=thawed
fsinfo() {
  if ! grep -q ' /mnt ' /proc/mounts; then printf '[]'; return; fi
  set -- $(df -k /mnt | tail -n 1)
  printf '[{"name": "vda", "mountpoint": "/mnt", "type": "ext2", "total-bytes": %d, "used-bytes": %d, "disk": []}]' $(($2 * 1024)) $(($3 * 1024))
}
answer() {
  id=$(echo "$1" | sed -n 's/.*"id": *\([0-9]*\).*/\1/p')
  case "$1" in
    *guest-sync-delimited*) printf '\377{"return": %s}\n' "$id" ;;
    *guest-sync*) printf '{"return": %s}\n' "$id" ;;
    *guest-ping*) printf '{"return": {}}\n' ;;
    *guest-info*) printf '{"return": {"version": "virtflow-test-guest-3", "supported_commands": []}}\n' ;;
    *guest-get-osinfo*) printf '{"return": %s}\n' "$osinfo" ;;
    *guest-get-host-name*) printf '{"return": {"host-name": "%s"}}\n' "$(hostname)" ;;
    *guest-get-timezone*) printf '{"return": {"zone": "UTC", "offset": 0}}\n' ;;
    *guest-get-users*) printf '{"return": [{"user": "root", "login-time": %s.0}]}\n' "$started" ;;
    *guest-get-fsinfo*) printf '{"return": %s}\n' "$(fsinfo)" ;;
    *guest-fsfreeze-freeze*) sync; frozen=frozen; printf '{"return": 1}\n' ;;
    *guest-fsfreeze-thaw*) frozen=thawed; printf '{"return": 1}\n' ;;
    *guest-fsfreeze-status*) printf '{"return": "%s"}\n' "$frozen" ;;
    *guest-shutdown*reboot*) echo "VIRTFLOW-GUEST-REBOOT" >/dev/console; sync; reboot -f ;;
    *guest-shutdown*) sync; poweroff -f ;;
    *) printf '{"error": {"class": "CommandNotFound", "desc": "not supported by the test guest agent"}}\n' ;;
  esac
}
dev=$(port)
while [ -z "$dev" ]; do sleep 1; dev=$(port); done
# The port stays open: closing it on a read that finds no host (EOF) would
# tell libvirt the agent left just as it connects.
exec 3<>"$dev"
while true; do
  if IFS= read -r line <&3; then answer "$line" >&3; else sleep 0.2; fi
done
AGENT
chmod 0755 "$root/bin/virtflow-agent"

mkdir -p "$dir.partial"
cp "$work/k/boot/vmlinuz-$kver" "$dir.partial/vmlinuz"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$dir.partial/initramfs.img"
# libguestfs calls a filesystem a Linux root when it has /etc, /bin and
# /etc/fstab (or /etc/hosts); /etc/os-release names it, and /bin/sh tells
# its architecture (and lets virt-customize --run-command run in it). An
# empty fstab makes / its only mount point.
disk="$work/diskroot"
mkdir -p "$disk"/{bin,etc,root,tmp}
chmod 1777 "$disk/tmp"
echo "VIRTFLOW-DISK-OK" > "$disk/virtflow-disk.txt"
cp /bin/busybox "$disk/bin/busybox"
ln -s busybox "$disk/bin/sh"
echo "# the test guest mounts nothing from here" > "$disk/etc/fstab"
echo "virtflow-guest" > "$disk/etc/hostname"
printf '127.0.0.1\tlocalhost\n' > "$disk/etc/hosts"
cat > "$disk/etc/os-release" <<'OSRELEASE'
NAME="Virtflow Test Guest"
ID=virtflow-test-guest
PRETTY_NAME="Virtflow Test Guest (busybox)"
VERSION_ID=2
OSRELEASE
# console=tty0 as well puts the kernel's messages on the display, so the
# graphical console shows the boot; the shell stays on the serial port,
# the last console named.
mkdir -p "$disk/boot/extlinux"
cp "$dir.partial/vmlinuz" "$dir.partial/initramfs.img" "$disk/boot/"
cat > "$disk/boot/extlinux/extlinux.conf" <<'EXTLINUX'
DEFAULT virtflow
TIMEOUT 1
LABEL virtflow
  LINUX /boot/vmlinuz
  INITRD /boot/initramfs.img
  APPEND console=tty0 console=ttyS0
EXTLINUX
mke2fs -q -t ext2 -d "$disk" "$dir.partial/disk.raw" 24M >&2
# extlinux finds ldlinux.sys's blocks through the mounted filesystem, and
# writes its boot sector into the ext2 boot block (the first KiB, which
# ext2 leaves free), so the disk needs no partition table.
mnt="$work/mnt"
mkdir -p "$mnt"
mount -o loop "$dir.partial/disk.raw" "$mnt"
trap 'umount "$mnt" 2>/dev/null || true; rm -rf "$work"' EXIT
if ! out=$(extlinux --install "$mnt/boot/extlinux" 2>&1); then
  echo "mkguest: extlinux could not make the disk bootable: $out" >&2
  exit 1
fi
umount "$mnt"

# The EFI disk: shim, GRUB, the kernel and the initramfs on a FAT system
# partition. GRUB reads its configuration from its built-in prefix,
# /EFI/debian, else from beside itself.
(cd "$work" && mkdir efidebs && cd efidebs && apt-get download shim-signed grub-efi-amd64-signed >/dev/null 2>&1 &&
  for d in ./*.deb; do dpkg-deb -x "$d" ../efiroot; done)
esp="$work/esp.img"
truncate -s 40M "$esp"
mkfs.vfat -F 32 -n VIRTFLOWEFI "$esp" >/dev/null
cat > "$work/grub.cfg" <<'GRUB'
set timeout=0
set default=0
menuentry "virtflow test guest" {
  search --no-floppy --file --set=root /vmlinuz
  linux /vmlinuz console=tty0 console=ttyS0
  initrd /initramfs.img
}
GRUB
mmd -i "$esp" ::/EFI ::/EFI/BOOT ::/EFI/debian
mcopy -i "$esp" "$work/efiroot/usr/lib/shim/shimx64.efi.signed" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$esp" "$work/efiroot/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" ::/EFI/BOOT/grubx64.efi
mcopy -i "$esp" "$work/grub.cfg" ::/EFI/debian/grub.cfg
mcopy -i "$esp" "$work/grub.cfg" ::/EFI/BOOT/grub.cfg
mcopy -i "$esp" "$dir.partial/vmlinuz" ::/vmlinuz
mcopy -i "$esp" "$dir.partial/initramfs.img" ::/initramfs.img
efi="$dir.partial/disk-efi.raw"
truncate -s 42M "$efi"
printf 'label: gpt\nstart=2048, size=%d, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="EFI System"\n' \
  $(($(stat -c %s "$esp") / 512)) | sfdisk --quiet "$efi"
dd if="$esp" of="$efi" bs=512 seek=2048 conv=notrunc status=none
chmod 0644 "$dir.partial"/*
rm -rf "$dir"
mv "$dir.partial" "$dir"
touch "$dir/.done"
echo "$dir"
