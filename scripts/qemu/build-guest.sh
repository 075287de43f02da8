#!/usr/bin/env bash
# Build (once) the guest kernel + initramfs that run-in-guest.sh boots.
#
# Why: the host kernel may have no RDMA at all, so real verbs run in a QEMU
# guest with Debian's stock kernel, which ships rdma_rxe (Soft-RoCE).
# Only the kernel comes from here; the guest's userspace is the host's own /
# shared over virtio-9p, so the initramfs just needs busybox, the modules
# and /init.
#
# Output (in $RDMATOUR_QEMU_CACHE, default ~/.cache/rdmatour/qemu):
#   the kernel .deb, and vmlinuz, initrd.img, kernel-version and a stamp
#   (a guest with siw keeps these four in CACHE/siw: lib.sh guest_image).
#   Rebuilt only if missing or if guest-init.sh / the module list changed
#   (the .deb is reused then); --force rebuilds anyway.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
CACHE=${RDMATOUR_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmatour/qemu}
IMG=$(guest_image "$CACHE")
# Modules the guest needs; their dependencies come from modules.dep.
# nf_tables and nft_numgen: scripts/wirefaults.sh and the wire lessons on
# rxe lose the Nth packet arriving at a QP with an nftables rule (its
# payload match and counter are nf_tables' own; numgen counts packets).
# crc32c_generic first: nf_tables needs libcrc32c, whose init asks the
# crypto API for crc32c, and busybox's insmod cannot load it on demand.
MODULES=(virtio_pci virtio_net 9pnet_virtio 9p rdma_rxe rdma_ucm ib_uverbs crc32_generic
         crc32c_generic nf_tables nft_numgen)
# Soft-iWARP (its MPA CRC: crc32c, loaded above), only for a guest that
# asks for it (RDMATOUR_GUEST_SIW): Debian's kernel has no siw
# (CONFIG_RDMA_SIW is not set), so build-siw.sh compiles it from
# linux-source, a 139 MB download and a minute's build that CI's rxe
# guests do without.
[[ -n ${RDMATOUR_GUEST_SIW:-} ]] && MODULES+=(siw)

force=0
[[ ${1:-} == --force ]] && force=1
stamp="$(cat "$HERE/guest-init.sh" "$HERE/build-siw.sh" | sha256sum | cut -c1-16) ${MODULES[*]}"
if [[ $force -eq 0 && -s $IMG/vmlinuz && -s $IMG/initrd.img &&
      "$(cat "$IMG/stamp" 2>/dev/null)" == "$stamp" ]]; then
    exit 0
fi

"$HERE/ensure-deps.sh"
mkdir -p "$CACHE" "$IMG"
work=$(mktemp -d "$CACHE/build.XXXXXX")
chmod 0755 "$work"
dl=
trap 'rm -rf "$work" ${dl:+"$dl"}' EXIT

# linux-image-amd64 is a metapackage; the real kernel is the package it
# depends on (e.g. linux-image-6.1.0-56-amd64 on bookworm).
kpkg() { apt-cache depends linux-image-amd64 2>/dev/null |
         awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'; }
pkg=$(kpkg || true)
if [[ -z $pkg ]]; then
    # Empty or stale package lists (fresh container): refresh once.
    apt-get update -qq
    pkg=$(kpkg)
fi
[[ -n $pkg ]] || { echo "build-guest: cannot find the package linux-image-amd64 depends on" >&2; exit 1; }

deb=$(ls "$CACHE/$pkg"_*.deb 2>/dev/null | head -n1 || true)
if [[ -z $deb ]]; then
    echo "build-guest: downloading $pkg (from the configured apt sources)" >&2
    # apt-get download writes to the cwd and, as root, drops privileges to
    # _apt, which usually cannot reach ~/.cache: use a world-writable dir in
    # /tmp to avoid apt's "unsandboxed" warning.
    dl=$(mktemp -d); chmod 0777 "$dl"
    ( cd "$dl" && apt-get download -qq "$pkg" ) || {
        apt-get update -qq; ( cd "$dl" && apt-get download -qq "$pkg" ); }
    rm -f "$CACHE"/linux-image-*.deb    # keep only the current kernel
    mv "$dl"/*.deb "$CACHE/"; rm -rf "$dl"
    deb=$(ls "$CACHE/$pkg"_*.deb | head -n1)
fi
dpkg-deb -x "$deb" "$work/k"

kver=$(ls "$work/k/lib/modules" | head -n1)
mdir=$work/k/lib/modules/$kver
# siw before depmod, so modules.dep lists it with its dependencies.
[[ " ${MODULES[*]} " == *" siw "* ]] && "$HERE/build-siw.sh" "$deb" "$mdir" "$CACHE"
# The package ships no modules.dep (its postinst runs depmod): make one.
depmod -b "$work/k" "$kver"
vmlinuz=$work/k/boot/vmlinuz-$kver
[[ -f $vmlinuz && -f $mdir/modules.dep ]] || { echo "build-guest: $deb has no vmlinuz/modules.dep" >&2; exit 1; }

# Resolve the module list into a dependency-first load order.
# modules.dep lines look like "kernel/a/b.ko: kernel/c.ko kernel/d.ko".
declare -A path_of=() seen=()
while IFS= read -r line; do
    mod=${line%%:*}
    name=$(basename "$mod"); name=${name%%.ko*}; name=${name//-/_}
    path_of[$name]=$mod
done < "$mdir/modules.dep"
order=()
visit() {  # depth-first: dependencies before the module itself
    local name=${1//-/_} dep deps
    [[ -n ${seen[$name]:-} ]] && return 0
    seen[$name]=1
    [[ -n ${path_of[$name]:-} ]] || {
        # Built into this kernel (not in modules.dep): nothing to load.
        grep -q "/${1}.ko" "$mdir/modules.builtin" 2>/dev/null ||
            echo "build-guest: note: module $1 not in modules.dep (assuming built in)" >&2
        return 0; }
    deps=$(grep -m1 "^${path_of[$name]}:" "$mdir/modules.dep" | cut -d: -f2)
    for dep in $deps; do
        dep=$(basename "$dep"); visit "${dep%%.ko*}"
    done
    order+=("${path_of[$name]}")
}
for m in "${MODULES[@]}"; do visit "$m"; done

# Assemble the initramfs.
root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,host,lib/modules}
cp "$(command -v busybox)" "$root/bin/busybox"
file -L "$root/bin/busybox" 2>/dev/null | grep -q 'dynamically linked' &&
    { echo "build-guest: $(command -v busybox) is not static; install busybox-static" >&2; exit 1; }
: > "$root/modules.order"
for rel in "${order[@]}"; do
    base=$(basename "$rel")
    case $base in   # busybox insmod wants plain .ko files
        *.ko.xz)  xz -dc  "$mdir/$rel" > "$root/lib/modules/${base%.xz}";  base=${base%.xz} ;;
        *.ko.zst) zstd -qdc "$mdir/$rel" > "$root/lib/modules/${base%.zst}"; base=${base%.zst} ;;
        *.ko.gz)  gzip -dc "$mdir/$rel" > "$root/lib/modules/${base%.gz}";  base=${base%.gz} ;;
        *)        cp "$mdir/$rel" "$root/lib/modules/$base" ;;
    esac
    echo "$base" >> "$root/modules.order"
done
install -m 0755 "$HERE/guest-init.sh" "$root/init"

( cd "$root" && find . -print0 | cpio --null -o -H newc --quiet ) | gzip -1 > "$work/initrd.img"
install -m 0644 "$vmlinuz" "$work/vmlinuz"
# Install atomically-ish: vmlinuz/initrd last so a half-built cache is "missing".
echo "$kver" > "$IMG/kernel-version"
mv -f "$work/initrd.img" "$IMG/initrd.img"
mv -f "$work/vmlinuz" "$IMG/vmlinuz"
echo "$stamp" > "$IMG/stamp"
echo "build-guest: kernel $kver, $(wc -l < "$root/modules.order") modules -> $IMG" >&2
