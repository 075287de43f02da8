#!/usr/bin/env bash
# Run COMMAND inside a QEMU guest that has a Soft-RoCE device rxe0 on
# 10.0.2.15, and exit with COMMAND's exit code.
#
#   run-in-guest.sh [--timeout SECONDS] -- COMMAND [ARGS...]
#
# Why a guest: this host's kernel may have no RDMA; the guest runs Debian's
# stock kernel (rdma_rxe) but chroots into the host's own / over virtio-9p,
# so host-built binaries and the host's libibverbs/librdmacm run unchanged.
# COMMAND runs as root in the caller's current directory with PATH, HOME,
# GO* (GOCACHE, GOPATH, GOFLAGS, ...) and RDMATOUR_* from the caller.
# Its stdout+stderr stream to our stdout; the kernel console goes to a log
# file whose path is printed on failure.
#
# Env: RDMATOUR_QEMU_CACHE (kernel/initrd cache), RDMATOUR_QEMU_MEM (MiB,
# default 1536), RDMATOUR_QEMU_KEEP=1 (keep the job dir even on success).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
CACHE=${RDMATOUR_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmatour/qemu}
export RDMATOUR_QEMU_CACHE=$CACHE
timeout=600

usage() { echo "usage: $0 [--timeout SECONDS] -- COMMAND [ARGS...]" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --timeout) [[ $# -ge 2 ]] || usage; timeout=$2; shift 2 ;;
        --timeout=*) timeout=${1#*=}; shift ;;
        --) shift; break ;;
        *) break ;;   # tolerate a missing "--"
    esac
done
[[ $# -gt 0 ]] || usage
[[ $timeout =~ ^[0-9]+$ && $timeout -gt 0 ]] || { echo "run-in-guest: bad --timeout '$timeout'" >&2; exit 2; }

if [[ $(id -u) -ne 0 ]]; then
    # QEMU's 9p export of / with security_model=none must be able to read and
    # write every file as its owner, and the guest's job runs as root.
    echo "run-in-guest: must run as root (try: sudo -E $0 ...)" >&2
    exit 2
fi

mkdir -p "$CACHE"
# One VM at a time: TCG guests are CPU-bound and `go test ./...` runs
# several test binaries in parallel. The lock also guards build-guest.
exec 9> "$CACHE/vm.lock"
flock 9
"$HERE/build-guest.sh"

# The job dir lives on the host's / (shared with the guest): the job
# script goes in, the exit code and logs come out.
job=$(mktemp -d /tmp/rdmatour-qemu.XXXXXX)
write_job "$job" "$@"

log=$job/console.log
img=$(guest_image "$CACHE")
kver=$(cat "$img/kernel-version" 2>/dev/null || echo '?')
mem=${RDMATOUR_QEMU_MEM:-1536}
extra=$(guest_args)
start=$SECONDS
set +e
# Exit 124 from timeout = guest killed. stdin is /dev/null so QEMU's stdio
# chardev never touches the caller's terminal settings.
timeout --foreground -k 10 "$timeout" \
qemu-system-x86_64 \
    -nodefaults -no-user-config -display none -no-reboot \
    -accel tcg,thread=multi -cpu max -smp 2 -m "$mem" \
    -kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
    -append "console=ttyS0 panic=-1 mitigations=off rdmatour.job=$job$extra" \
    -serial "file:$log" \
    -chardev stdio,id=out,signal=off -serial chardev:out \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,multidevs=remap \
    -netdev hubport,id=n0,hubid=0 -device virtio-net-pci,netdev=n0 \
    < /dev/null 2> "$job/qemu.stderr"
qrc=$?
set -e

fail() {  # fail CODE MESSAGE
    echo "run-in-guest: $2" >&2
    echo "run-in-guest: kernel $kver; console log: $log; qemu stderr: $job/qemu.stderr" >&2
    exit "$1"
}
if [[ $qrc -eq 124 || $qrc -eq 137 ]]; then
    fail 124 "guest killed after --timeout $timeout s (command hung or guest did not boot)"
elif [[ -s $job/setup-error ]]; then
    fail 125 "guest setup failed: $(cat "$job/setup-error")"
elif [[ ! -s $job/rc ]]; then
    tail -n 5 "$job/qemu.stderr" >&2 || true
    fail 125 "guest stopped without an exit code (qemu exit $qrc after $((SECONDS - start)) s)"
fi
rc=$(cat "$job/rc")
if [[ $rc -ne 0 ]]; then
    echo "run-in-guest: command exited $rc (console log: $log)" >&2
elif [[ -z ${RDMATOUR_QEMU_KEEP:-} ]]; then
    rm -rf "$job"
fi
exit "$rc"
