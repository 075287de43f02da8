#!/usr/bin/env bash
# Self-test of the QEMU Soft-RoCE harness: boots one guest and checks that
# rxe0 is up and that the seed C demo (testdata/seed/rdma-write-demo.c)
# works server<->client on 10.0.2.15 in both notify modes (send, doorbell).
#   selftest.sh              (as root; prints PASS/FAIL lines, exit 0 = all ok)
# Internally re-invokes itself in the guest as: selftest.sh --in-guest DIR
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ ${1:-} != --in-guest ]]; then
    out=$(mktemp -d /tmp/rdmatour-selftest.XXXXXX)   # on the shared host /
    "$HERE/build-seed.sh" "$out"
    rc=0
    "$HERE/run-in-guest.sh" --timeout 300 -- "$HERE/selftest.sh" --in-guest "$out" || rc=$?
    if [[ $rc -eq 0 ]]; then echo "selftest: PASS"; rm -rf "$out"
    else echo "selftest: FAIL (exit $rc; outputs kept in $out)" >&2; fi
    exit "$rc"
fi

# ---- inside the guest (chrooted into the host's /) ----
out=$2
demo=$out/rdma-write-demo
fails=0
check() {  # check FILE STRING: FILE must contain STRING (fixed string)
    if grep -qF -- "$2" "$1"; then echo "ok   $(basename "$1"): $2"
    else echo "FAIL $(basename "$1") lacks: $2"; sed 's/^/     | /' "$1"; fails=$((fails + 1)); fi
}

ibv_devinfo -d rxe0 > "$out/devinfo" 2>&1 || true
check "$out/devinfo" "PORT_ACTIVE"

for mode in send doorbell; do
    # stdbuf: the demo uses printf; without it "listening" stays in a buffer.
    stdbuf -oL "$demo" server 7471 > "$out/server.$mode" 2>&1 &
    spid=$!
    for _ in $(seq 100); do   # up to 10 s for rdma_listen
        grep -q listening "$out/server.$mode" && break
        kill -0 "$spid" 2>/dev/null || break
        sleep 0.1
    done
    timeout 60 "$demo" client 10.0.2.15 7471 "$mode" > "$out/client.$mode" 2>&1 ||
        { echo "FAIL client ($mode) exited $?"; fails=$((fails + 1)); }
    # The server exits after one connection; don't let a stuck one hang us.
    ( sleep 30; kill "$spid" 2>/dev/null ) & guard=$!
    wait "$spid" || { echo "FAIL server ($mode) exited $?"; fails=$((fails + 1)); }
    kill "$guard" 2>/dev/null || true
    check "$out/client.$mode" "[client] sent $mode notification"
    check "$out/server.$mode" "[server] RDMA-written buffer: hello from 108-41 client via RDMA WRITE"
    if [[ $mode == send ]]; then
        check "$out/server.$mode" "[server] received normal SEND: RDMA_WRITE_DONE"
    else
        check "$out/server.$mode" "[server] received doorbell value: 1"
    fi
done
grep -h private_data_len "$out/client.send" || true   # 196 over RoCE, worth teaching
[[ $fails -eq 0 ]] || { echo "$fails check(s) failed"; exit 1; }
