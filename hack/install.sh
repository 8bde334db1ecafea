#!/usr/bin/env bash
# Installs what virtflow needs on a Debian 12 machine, idempotently: Debian
# packages (only the missing ones, so a second run costs a dpkg query) and the
# pinned control-plane binaries, built once into ~/.cache/virtflow.
# --tests also builds what only the tests use (upstream KubeVirt's virtctl),
# which `make up` leaves to its first use.
set -euo pipefail
cd "$(dirname "$0")/.."
tests=false
if [ "${1:-}" = --tests ]; then tests=true; fi

# Each step prints when it starts and how long it took, so a first run on a
# fresh machine (most of an hour) shows where it is; a warm run prints the
# same lines with seconds.
started=$SECONDS
step() {
  local label=$1 begun=$SECONDS
  shift
  printf '%s  install: %s ...\n' "$(date +%T)" "$label" >&2
  "$@"
  printf '%s  install: %s done in %ds (%ds in all)\n' "$(date +%T)" "$label" $((SECONDS - begun)) $((SECONDS - started)) >&2
}

# chromium runs the web console's browser tests; extlinux makes the test
# guest's disk bootable by itself, dosfstools and mtools build its EFI
# disk; OVMF and swtpm are the firmware and TPM of guests a launcher runs
# outside a pod; xmllint checks built domains against libvirt's schema.
packages=(
  pkg-config libvirt-dev libvirt-daemon-system libvirt-clients
  qemu-system-x86 qemu-utils nbdkit busybox-static cpio socat bridge-utils iproute2
  genisoimage e2fsprogs gzip xz-utils curl
  runc containernetworking-plugins nftables conntrack iptables mmdebstrap
  extlinux syslinux-common chromium dosfstools mtools fdisk ovmf swtpm swtpm-tools libxml2-utils
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  step "apt-get update" $SUDO apt-get update -qq
  step "Debian packages" $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The test guest and the two image bases are package downloads and
# mmdebstrap runs, which wait on the network and the disk more than on the
# cores; they run beside the Go builds below, which keep both cores busy.
# Their own lines say when each is done; a failure stops the install once
# the Go builds are through.
(
  # The test guest (Debian cloud kernel + busybox initramfs + a small disk).
  step "the test guest" ./hack/mkguest.sh >/dev/null
  # The launcher image's base: Debian with libvirt and QEMU (once per
  # package list, about a minute).
  step "the launcher image's base" ./hack/launcher-base.sh >/dev/null
  # The libguestfs-tools image's base: Debian's libguestfs tools with a
  # fixed appliance, for `virtctl guestfs` and the disk-virt tasks (once
  # per package list, two to four minutes).
  step "the libguestfs image's base" ./hack/libguestfs-base.sh >/dev/null
) &
bases=$!

# Builds the pinned Kubernetes binaries (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kubectl) from
# tools/k8s, containerd from tools/containerd, CoreDNS from tools/coredns,
# the node's registry from tools/registry, the CSI external-provisioner from
# tools/csi and Multus from tools/multus (first run only) and prints where
# they are.
step "Kubernetes, containerd, CoreDNS and registry binaries" go run ./cmd/virtflow prepare

# The temporal CLI, for administering the embedded Temporal server, is
# built on its first use by ./hack/temporal: neither `up` nor the tests
# need it.

# virtctl cross-built for hco's cli-download (linux, mac, windows × amd64,
# arm64).
step "virtctl cross-builds" ./hack/virtctl-builds.sh >/dev/null

# Upstream KubeVirt's own virtctl, which the tests drive our API with; the
# script builds it on first use otherwise.
if $tests; then
  step "upstream virtctl" ./hack/upstream-virtctl.sh >/dev/null
fi

# The web console's browser bundle (console/web/dist, embedded in the
# virtflow binary), from npm packages cached by the lockfile's hash.
step "the web console bundle" ./hack/console-build.sh >/dev/null

if ! wait "$bases"; then
  echo "install: the test guest or an image base failed (see above)" >&2
  exit 1
fi
printf '%s  install: done in %ds\n' "$(date +%T)" $((SECONDS - started)) >&2
