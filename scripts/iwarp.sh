#!/usr/bin/env bash
# CI's iWARP stage: Soft-iWARP (siw, built from Debian's kernel source by
# scripts/qemu/build-siw.sh) in one guest and across two wired guests,
# scripts/qemu/siw-two-guests.sh without its full-screen UI tour (the UI
# in tmux is TestRealTUIInTmux on rxe; run the script by hand for it).
#   scripts/iwarp.sh            (root; 2m10s from a cold cache, measured)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/qemu/ensure-deps.sh
out=$(mktemp -d /tmp/rdmatour-siw.XXXXXX)   # on the / both guests share
chmod 755 "$out"
[[ -n ${RDMATOUR_QEMU_KEEP:-} ]] || trap 'rm -rf "$out"' EXIT
go build -o "$out/rdmatour" ./cmd/rdmatour
scripts/qemu/siw-two-guests.sh --no-tui "$out/rdmatour" "$out"
