#!/usr/bin/env bash
# build-siw.sh DEB MODDIR CACHE: put siw.ko (Soft-iWARP) into MODDIR
# (an unpacked kernel's lib/modules/KVER) when the kernel DEB lacks it.
#
# Why: Debian's kernels are built with "# CONFIG_RDMA_SIW is not set"
# (measured on bookworm's 6.1.0-48), so the guest kernel has rdma_rxe but
# no siw. The driver is one self-contained directory
# (drivers/infiniband/sw/siw) that needs only ib_core and libcrc32c, so we
# compile it out of tree from Debian's own source package of the same
# version against the matching headers package: the module's vermagic and
# symbol CRCs then match the guest kernel. The result is cached per kernel
# version in CACHE (about 15 s to build, 8 s of it reading siw out of
# linux-source, a 139 MB download fetched through apt-get from the
# configured sources, once). Measured on 6.1.0-48 and 6.1.0-57.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
deb=$1 mdir=$2 cache=$3
kver=$(basename "$mdir")
if grep -q '/siw\.ko' "$mdir/modules.dep" "$mdir/modules.builtin" 2>/dev/null ||
   find "$mdir" -name 'siw.ko*' | grep -q .; then
    exit 0   # this kernel ships siw: nothing to build
fi
out=$cache/siw-$kver.ko
if [[ ! -s $out ]]; then
    ver=$(dpkg-deb -f "$deb" Version)       # e.g. 6.1.172-1
    series=$(echo "$kver" | cut -d. -f1,2)  # e.g. 6.1
    export DEBIAN_FRONTEND=noninteractive
    hdr=/usr/src/linux-headers-$kver
    if [[ ! -d $hdr ]]; then
        echo "build-siw: installing linux-headers-$kver" >&2
        apt-get install -y -qq --no-install-recommends "linux-headers-$kver" >/dev/null ||
            { apt-get update -qq; apt-get install -y -qq --no-install-recommends "linux-headers-$kver" >/dev/null; }
    fi
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    chmod 0777 "$work"   # apt-get download drops privileges to _apt
    echo "build-siw: downloading linux-source-$series=$ver for drivers/infiniband/sw/siw" >&2
    ( cd "$work" && apt-get download -qq "linux-source-$series=$ver" )
    src=$work/linux-source-$series/drivers/infiniband/sw/siw
    # Only siw's directory, and the decompression stops once it has gone
    # by (a third of the way into the 1.2 GB tree): tar would xz-decode
    # all of it. The writers upstream then die of SIGPIPE, hence no
    # pipefail here and the check after.
    ( set +o pipefail
      dpkg-deb --fsys-tarfile "$work"/linux-source-*.deb |
          tar -xO "./usr/src/linux-source-$series.tar.xz" |
          python3 "$HERE/extract-dir.py" "linux-source-$series/drivers/infiniband/sw/siw/" "$work" ) 2>/dev/null
    [[ -s $src/Makefile && -s $src/siw_main.c ]] ||
        { echo "build-siw: linux-source-$series=$ver has no drivers/infiniband/sw/siw" >&2; exit 1; }
    make -s -C "$hdr" M="$src" CONFIG_RDMA_SIW=m modules >&2
    install -m 0644 "$src/siw.ko" "$out"
fi
mkdir -p "$mdir/extra"
install -m 0644 "$out" "$mdir/extra/siw.ko"
