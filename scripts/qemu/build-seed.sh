#!/usr/bin/env bash
# Compile the seed C demo (testdata/seed/rdma-write-demo.c) on the host.
# The guest chroots into the host's /, so this binary runs there as is.
#   build-seed.sh OUTDIR   ->  OUTDIR/rdma-write-demo
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."   # repo root: the gcc line uses repo paths
command -v gcc >/dev/null || { echo "build-seed: gcc not found (apt-get install gcc)" >&2; exit 1; }
gcc -O2 -o "$out/rdma-write-demo" testdata/seed/rdma-write-demo.c -libverbs -lrdmacm
