#!/usr/bin/env bash
# Builds the launcher image's base, once per package list, into the cache,
# and prints the path of its root filesystem tarball: Debian bookworm's
# essential packages with libvirt's daemon and QEMU driver, QEMU for x86,
# qemu-img, genisoimage (cloud-init disks), passt (the passt binding), ps,
# OVMF (EFI and Secure Boot firmware) and swtpm (the guests' TPM), as the
# virt-launcher pod runs them (libvirtd in session mode and qemu
# as a non-root user). The components image shares this base: virt-handler
# links libvirt's client library, programs launcher pods' networks with ip
# and nft, and its node worker imports disks with nbdkit and xz.
# Documentation, manual pages and translations are left out.
set -euo pipefail

packages=(libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients qemu-system-x86 qemu-utils genisoimage procps nbdkit xz-utils passt iproute2 nftables ovmf swtpm swtpm-tools)
suite=bookworm
key=$(printf '%s\n' "$suite" "${packages[@]}" v1 | sha256sum | cut -c1-12)
dir="${VIRTFLOW_CACHE_DIR:-$HOME/.cache/virtflow}/launcher-base-$key"
if [ -f "$dir/rootfs.tar" ]; then
  echo "$dir/rootfs.tar"
  exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
include=$(IFS=,; echo "${packages[*]}")
# A partial tarball never looks finished: written aside, then renamed.
mmdebstrap --quiet --format=tar --variant=essential --include="$include" \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  "$suite" "$dir/rootfs.tar.partial" \
  "deb http://deb.debian.org/debian $suite main" \
  "deb http://deb.debian.org/debian $suite-updates main" \
  "deb http://deb.debian.org/debian-security $suite-security main" >&2
mv "$dir/rootfs.tar.partial" "$dir/rootfs.tar"
echo "$dir/rootfs.tar"
