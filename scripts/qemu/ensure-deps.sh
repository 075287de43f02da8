#!/usr/bin/env bash
# Install the host packages the QEMU real-verbs harness needs, if missing.
#
# Why these: qemu runs the guest; busybox-static/cpio/kmod build its initramfs;
# the guest chroots into the host's / over 9p, so the host's rdma-core
# userspace (libibverbs, librdmacm, the rxe provider, the CLI tools and the
# headers for cgo / the seed demo) is what runs inside the guest.
#
# Idempotent: does nothing (and prints nothing) when all are present.
# Runs `apt-get update` only if an install is actually needed.
set -euo pipefail

PKGS=(qemu-system-x86 busybox-static cpio kmod iproute2 rdma-core
      ibverbs-providers ibverbs-utils rdmacm-utils perftest tmux util-linux
      libibverbs-dev librdmacm-dev
      gcc libc6-dev    # build-seed.sh and the probes compile C on the host
      tcpdump tshark   # twohosts.sh captures the wire and checks it dissects
      nftables)        # the wire lessons on rxe drop packets with nft (wirefaults.sh)

missing=()
for p in "${PKGS[@]}"; do
    # dpkg-query prints "install ok installed" only for fully installed packages.
    if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]]; then
        missing+=("$p")
    fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
    echo "ensure-deps: missing packages: ${missing[*]}" >&2
    echo "ensure-deps: run as root (sudo $0) to install them with apt-get" >&2
    exit 1
fi
command -v apt-get >/dev/null || {
    echo "ensure-deps: apt-get not found; install by hand: ${missing[*]}" >&2; exit 1; }

echo "ensure-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Fresh containers often have empty package lists; try without update first
# only if lists exist, otherwise update straight away.
if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 ||
   ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
