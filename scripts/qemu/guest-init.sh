#!/bin/busybox sh
# /init of the rdmatour QEMU guest (copied into the initramfs by build-guest.sh).
#
# Loads the modules, mounts the host's / (virtio-9p, tag "hostroot") on /host,
# sets up the NIC + Soft-RoCE device rxe0 (and/or Soft-iWARP siw0 with
# rdmatour.siw=), then runs the job script that
# run-in-guest.sh left on the share (rdmatour.job=DIR on the kernel command
# line) chrooted into the host's /, with its output on /dev/ttyS1 (= the
# caller's stdout). Writes DIR/rc (exit code) or DIR/setup-error, powers off.
# Diagnostics go to /dev/console (ttyS0 = the console log file).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

log() { echo "rdmatour-init: $*" > /dev/console; }
job=
addr=10.0.2.15/24   # rdmatour.ip= on the command line overrides (two wired guests)
siw=                # rdmatour.siw=1: siw0 next to rxe0; =only: siw0 instead
for arg in $(cat /proc/cmdline); do
    case $arg in
        rdmatour.job=*) job=${arg#rdmatour.job=} ;;
        rdmatour.ip=*) addr=${arg#rdmatour.ip=} ;;
        rdmatour.siw=*) siw=${arg#rdmatour.siw=} ;;
    esac
done

fail() {  # setup failed: tell the caller (stdout + file on the share) and stop
    log "SETUP FAILED: $*"
    echo "run-in-guest: guest setup failed: $*" > /dev/ttyS1
    [ -n "$job" ] && [ -d "/host$job" ] && echo "$*" > "/host$job/setup-error"
    sync; poweroff -f
}

for m in $(cat /modules.order); do
    insmod "/lib/modules/$m" || log "insmod $m failed"
done

# msize: larger 9p messages make reading host binaries/libraries faster.
mount -t 9p -o trans=virtio,version=9p2000.L,cache=mmap,msize=262144 hostroot /host ||
    fail "cannot mount the host's / over virtio-9p"
[ -n "$job" ] && [ -f "/host$job/cmd.sh" ] || fail "no job script (rdmatour.job=$job)"

# The guest's own kernel filesystems on top of the host's tree (only the
# guest sees these mounts). /tmp is left alone: it stays the host's /tmp so
# go test -exec binaries under /tmp/go-build* are visible.
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /host/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /host/dev/shm
mount -t tmpfs -o mode=0755 tmpfs /host/run

# The NIC is the interface backed by a device (virtio-net), not lo/dummy*.
nic=
for d in /sys/class/net/*; do
    [ -e "$d/device" ] && { nic=${d##*/}; break; }
done
[ -n "$nic" ] || fail "no NIC with a device link in /sys/class/net"
ip link set lo up
ip link set "$nic" up
ip addr add "$addr" dev "$nic"
# busybox has no `rdma`; use the host's iproute2 one.
add_dev() {  # add_dev NAME TYPE: make the software RDMA device and wait for ACTIVE
    chroot /host rdma link add "$1" type "$2" netdev "$nic" > /dev/console 2>&1 ||
        fail "rdma link add $1 type $2 netdev $nic failed"
    i=0
    until grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null; do
        i=$((i + 1))
        [ $i -gt 300 ] && fail "$1 port 1 not ACTIVE after 30 s: $(cat "/sys/class/infiniband/$1/ports/1/state" 2>&1)"
        sleep 0.1
    done
    log "$1 ACTIVE on $nic"
}
[ "$siw" = only ] || add_dev rxe0 rxe
[ -n "$siw" ] && add_dev siw0 siw
log "running job $job"

# Raw mode: no \n -> \r\n translation, no echo, on the output port.
stty -F /dev/ttyS1 raw -echo
chroot /host /usr/bin/env -i /bin/bash "$job/cmd.sh" < /dev/null > /dev/ttyS1 2>&1
rc=$?
echo "$rc" > "/host$job/rc"
log "job exited $rc"
sync
poweroff -f
