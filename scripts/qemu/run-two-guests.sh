#!/usr/bin/env bash
# Two hosts on one wire: boot two QEMU guests, each with its own kernel and
# Soft-RoCE device rxe0, wired together with QEMU's socket netdev, and run
# SCRIPT_A in guest A (10.0.3.1) and SCRIPT_B in guest B (10.0.3.2).
#
#   run-two-guests.sh [--timeout SECONDS] SCRIPT_A SCRIPT_B
#
# Each script runs with bash as root, chrooted into the host's / (as in
# run-in-guest.sh), with RDMATOUR_GUEST=a|b, RDMATOUR_GUEST_IP and
# RDMATOUR_PEER_IP set. Both guests see the host's /tmp, so the scripts
# coordinate through files there (e.g. B waits until A's server listens).
# Unlike one guest, where rxe loops packets back inside the kernel, here
# every RoCEv2 packet crosses the wire: tcpdump in either guest sees them.
# Output: A's then B's, each line prefixed; exit 0 only if both exit 0.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
CACHE=${RDMATOUR_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmatour/qemu}
export RDMATOUR_QEMU_CACHE=$CACHE
timeout=600
if [[ ${1:-} == --timeout ]]; then timeout=$2; shift 2; fi
[[ $# -eq 2 ]] || { echo "usage: $0 [--timeout SECONDS] SCRIPT_A SCRIPT_B" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "run-two-guests: must run as root" >&2; exit 2; }
script_a=$(realpath "$1")
script_b=$(realpath "$2")

mkdir -p "$CACHE"
exec 9> "$CACHE/vm.lock"   # no other guest meanwhile: two already share 2 cores
flock 9
"$HERE/build-guest.sh"

# A free TCP port on loopback for the wire between the guests.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
img=$(guest_image "$CACHE")
kver=$(cat "$img/kernel-version" 2>/dev/null || echo '?')
extra=$(guest_args)

boot() { # boot NAME IP PEER MAC NETDEV: starts one guest in the background
    local name=$1 ip=$2 peer=$3 mac=$4 netdev=$5 dir
    dir=$(mktemp -d "/tmp/rdmatour-qemu-$name.XXXXXX")
    RDMATOUR_GUEST=$name RDMATOUR_GUEST_IP=$ip RDMATOUR_PEER_IP=$peer \
        write_job "$dir" bash "$(eval echo "\$script_$name")"
    timeout --foreground -k 10 "$timeout" \
    qemu-system-x86_64 \
        -nodefaults -no-user-config -display none -no-reboot \
        -accel tcg,thread=multi -cpu max -smp 1 -m "${RDMATOUR_QEMU_MEM:-1024}" \
        -kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
        -append "console=ttyS0 panic=-1 mitigations=off rdmatour.job=$dir rdmatour.ip=$ip/24$extra" \
        -serial "file:$dir/console.log" -serial "file:$dir/out.log" \
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,multidevs=remap \
        -netdev "socket,id=n0,$netdev" -device "virtio-net-pci,netdev=n0,mac=$mac" \
        < /dev/null 2> "$dir/qemu.stderr" &
    eval "pid_$name=$! dir_$name=$dir"
}

start=$SECONDS
boot a 10.0.3.1 10.0.3.2 52:54:00:00:03:01 "listen=127.0.0.1:$port"
sleep 1   # A's socket must be listening before B connects
boot b 10.0.3.2 10.0.3.1 52:54:00:00:03:02 "connect=127.0.0.1:$port"
set +e
wait "$pid_a"; qa=$?
wait "$pid_b"; qb=$?
guest_result "$dir_a" "guest A" "$qa" "$timeout"; ra=$?
guest_result "$dir_b" "guest B" "$qb" "$timeout"; rb=$?
set -e
sed 's/^/A| /' "$dir_a/out.log"
sed 's/^/B| /' "$dir_b/out.log"
echo "run-two-guests: A exited $ra, B exited $rb after $((SECONDS - start)) s (kernel $kver)"
if [[ $ra -eq 0 && $rb -eq 0 && -z ${RDMATOUR_QEMU_KEEP:-} ]]; then
    rm -rf "$dir_a" "$dir_b"
fi
[[ $ra -eq 0 && $rb -eq 0 ]]
