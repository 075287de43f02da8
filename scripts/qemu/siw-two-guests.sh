#!/usr/bin/env bash
# Soft-iWARP in one guest and across two wired guests: siw0 on each
# guest's eth0 (RDMATOUR_GUEST_SIW=only: no rxe0, so rdma_cm binds the
# address to siw0).
#
#   siw-two-guests.sh [--no-tui] RDMATOUR_BINARY [OUTDIR]
#
# First, each guest on its own: rdmacore's siw facts in A (TestSiw*: the
# device, the refusals, the READ sink's access, a bad rkey) and the tours
# with both sides in one guest, half in A and half in B
# (TestRealSiwTours: write and read as two processes; atomic, ud,
# --notify imm and the manual track refused). Then the
# write and read tours across the wire: the server on A (10.0.3.1), the
# client on B, and tcpdump on B's eth0 for the tour's TCP port.
#
# OUTDIR (default: a new /tmp/rdmatour-siw.XXXXXX) gets each guest's own
# tests' logs (a-local-*.txt, b-local-*.txt), each side's plain output (a-TOUR.txt,
# b-TOUR.txt), its --record (a-TOUR.rec) and its own --pcap
# (a-TOUR.rdmatour.pcap), and B's tcpdump capture (TOUR.pcap).
# Last, unless --no-tui (CI: the full-screen UI in tmux is
# TestRealTUIInTmux on rxe), the write tour again with B's client in its
# full-screen UI in tmux (TestSiwTwoHostsTUI: the wire view must list the
# iWARP messages; b-tui.txt, tui-client.rdmatour.pcap.screen). Then, on
# the host, TestSiwTwoHostsWireRows holds each side's wire pane, drawn
# from its recording, and its --pcap against the iWARP messages in
# tcpdump's capture, and the read tour's server must say its NIC
# answered the READ. Exit 0 only if every side of every run exits 0 and
# those checks pass. Measured (2026-12-04, kernel 6.1.0-57): the guests
# run 82 s with --no-tui, boot included, each guest's own tests 22-25 s
# of it side by side (48 s in one guest alone).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=1
if [[ ${1:-} == --no-tui ]]; then tui=0; shift; fi
[[ $# -ge 1 && -x $1 ]] || { echo "usage: $0 [--no-tui] RDMATOUR_BINARY [OUTDIR]" >&2; exit 2; }
bin=$(realpath "$1")
out=${2:-$(mktemp -d /tmp/rdmatour-siw.XXXXXX)}
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/a-*.txt "$out"/b-*.txt "$out"/*.pcap "$out"/*.rec "$out"/*.screen
repo=$(cd "$HERE/../.." && pwd)
# The test binaries, built before the guests: A runs rdmacore's siw tests
# and TestRealSiwTours, B the TUI test.
(cd "$repo" && go test -c -o "$out/cmd.test" ./cmd/rdmatour && go test -c -o "$out/rdmacore.test" ./verbs/rdmacore)
port=7471
tours="write read"
scripts=$(mktemp -d)
trap 'rm -rf "$scripts"' EXIT

# Each guest first runs tests on its own siw0, both sides in the one
# guest, the two halves side by side; alone.sh runs one test binary and logs it as
# GUEST-local-NAME.txt.
cat > "$scripts/alone.sh" <<EOF
cp "$bin" /run/rdmatour   # the guest's tmpfs, not 9p: see scripts/realverbs.sh
alone() { # alone NAME DIR TEST_BINARY ARGS...
    local name=\$1 dir=\$2 log="$out/\$RDMATOUR_GUEST-local-\$1.txt"
    shift 2
    (cd "$repo/\$dir" && RDMATOUR_RDMA_ADDR=\$RDMATOUR_GUEST_IP RDMATOUR_SIW_ADDR=\$RDMATOUR_GUEST_IP \
        RDMATOUR_BIN=/run/rdmatour "\$@" -test.count=1 -test.v) > "\$log" 2>&1 &&
        grep -q -- '^--- PASS' "\$log" && ! grep -q -- '--- SKIP' "\$log" && return 0   # a skip: siw0 was not used
    echo "guest \$RDMATOUR_GUEST: \$name failed:"; grep -E -A 30 -- '--- FAIL' "\$log" | head -n 200
    tail -n 40 "\$log"
    return 1
}
EOF
# A: rdmacore's siw facts and half the tours on its own, then one server
# per tour, one after the other.
cat > "$scripts/a.sh" <<EOF
rc=0
. "$scripts/alone.sh"
alone rdmacore verbs/rdmacore "$out/rdmacore.test" -test.run '^TestSiw' -test.timeout 5m || rc=1
alone tours cmd/rdmatour "$out/cmd.test" -test.run '^TestRealSiwTours\$/^(write-send|read|write-imm)\$' -test.timeout 5m || rc=1
grep -h -- '^--- \|^    --- ' "$out"/a-local-*.txt
for t in $tours; do
    /run/rdmatour server $port --bind "\$RDMATOUR_GUEST_IP" --tour \$t --backend rdma --plain --auto --timeout 120s \
        --record "$out/a-\$t.rec" --pcap "$out/a-\$t.rdmatour.pcap" > "$out/a-\$t.txt" 2>&1 || rc=1
done
[ $tui = 0 ] || /run/rdmatour server $port --bind "\$RDMATOUR_GUEST_IP" --tour write --backend rdma --plain --auto --timeout 120s \
    --wait-client 180s > "$out/a-tui.txt" 2>&1 || rc=1
exit \$rc
EOF
# B: the other half of the tours on its own, then, once A's listener is
# up (A's output is on the shared /tmp), the client with tcpdump on the
# wire.
cat > "$scripts/b.sh" <<EOF
rc=0
. "$scripts/alone.sh"
alone tours cmd/rdmatour "$out/cmd.test" -test.run '^TestRealSiwTours\$/^(write-doorbell|atomic|ud|manual)\$' -test.timeout 5m || rc=1
grep -h -- '^--- \|^    --- ' "$out"/b-local-*.txt
for t in $tours; do
    for i in \$(seq 1 600); do
        grep -q 'rdma_listen(listener, 1); /\* = 0 \*/' "$out/a-\$t.txt" 2>/dev/null && break
        sleep 0.2
    done
    tcpdump -i eth0 -U -s 0 -w "$out/\$t.pcap" tcp port $port > /dev/null 2>&1 &
    td=\$!
    sleep 1
    /run/rdmatour client "\$RDMATOUR_PEER_IP" $port --tour \$t --backend rdma --plain --auto --timeout 120s \
        --record "$out/b-\$t.rec" --pcap "$out/b-\$t.rdmatour.pcap" > "$out/b-\$t.txt" 2>&1 || rc=1
    sleep 1
    kill \$td; wait \$td 2>/dev/null || true
done
[ $tui = 0 ] && exit \$rc
for i in \$(seq 1 600); do
    grep -q 'rdma_listen(listener, 1); /\* = 0 \*/' "$out/a-tui.txt" 2>/dev/null && break
    sleep 0.2
done
(cd "$repo/cmd/rdmatour" && TMUX_TMPDIR=/run RDMATOUR_BIN=/run/rdmatour RDMATOUR_SIW_TUI_PEER=\$RDMATOUR_PEER_IP \
    RDMATOUR_SIW_TUI_PCAP="$out/tui-client.rdmatour.pcap" "$out/cmd.test" -test.run TestSiwTwoHostsTUI -test.v) > "$out/b-tui.txt" 2>&1 || rc=1
exit \$rc
EOF
echo "siw-two-guests: output in $out" >&2
RDMATOUR_GUEST_SIW=only "$HERE/run-two-guests.sh" --timeout 400 "$scripts/a.sh" "$scripts/b.sh"
# The server's NIC answered the client's READ, seen in its own capture
# (steps peerops.go readSummary; before the iWARP capture it said it
# could not tell). Plain mode wraps lines: fold them first.
tr -s ' \n' ' ' < "$out/a-read.txt" | grep -q "this side's NIC answered 1 READ (seen on the wire)" ||
    { echo "siw-two-guests: the read server did not see its NIC answer the READ" >&2; exit 1; }
[[ $tui = 0 ]] || grep -q -- '--- PASS: TestSiwTwoHostsTUI' "$out/b-tui.txt" ||
    { echo "siw-two-guests: TestSiwTwoHostsTUI did not pass in guest B:" >&2; tail -40 "$out/b-tui.txt" >&2; exit 1; }
cd "$repo/cmd/rdmatour"
RDMATOUR_SIW_DIR=$out "$out/cmd.test" -test.run TestSiwTwoHostsWireRows -test.count=1 -test.v | grep -v '^=== RUN'
exit "${PIPESTATUS[0]}"
