#!/usr/bin/env bash
# rxe-window.sh: measure, between two wired guests, how far rxe's
# requester runs ahead of the ACKs it has received, and where it sets
# AckReq. ib_write_bw in guest B writes 10 messages of 300 packets
# (307200 bytes at the 1024-byte path MTU) to guest A, 4 in flight;
# tcpdump in B sees B's requests leave and A's ACKs arrive.
#
# Measured 2026-12-07 (kernel 6.1.0-57): 3000 request packets, never more
# than 128 PSNs past the oldest unacknowledged one and 34-36 times exactly
# 128 (rxe_req.c rxe_requester, RXE_MAX_UNACKED_PSNS); AckReq on packets
# 65, 131, 197, 263 and 299 of each message (init_req_packet,
# RXE_MAX_PKT_PER_ACK). The simulated NIC sets AckReq the same way
# (verbs/sim/msgrun.go reqAckEvery) but does not stop at 128
# (branch rxe-window has it, and what it costs).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mktemp -d /tmp/rxe-window.XXXXXX)
cat > "$out/a.sh" <<A
ib_write_bw -R -d rxe0 -p 18600 -s 307200 -n 10 -t 4 -F > $out/a.log 2>&1
A
cat > "$out/b.sh" <<B
nic=\$(ls /sys/class/net | grep -v lo | head -1)
tcpdump -i "\$nic" -U -s 128 -w $out/b.pcap udp port 4791 2> $out/tcpdump.log &
dump=\$!
sleep 4
for i in \$(seq 10); do
  ib_write_bw -R -d rxe0 -p 18600 -s 307200 -n 10 -t 4 -F \$RDMATOUR_PEER_IP > $out/b.log 2>&1 && break
  sleep 2
done
sleep 1; kill -INT \$dump; wait \$dump
B
"$HERE/run-two-guests.sh" --timeout 600 "$out/a.sh" "$out/b.sh"
tshark -r "$out/b.pcap" -T fields -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.bth.a |
python3 -c '
import collections, sys
M = 1 << 24
def diff(a, b):
    x = (a - b) % M
    return x - M if x >= M // 2 else x
acked = first = None
lead, asks = [], []
for line in sys.stdin:
    src, op, psn, ackreq = (line.rstrip("\n").split("\t") + [""] * 4)[:4]
    if not psn:
        continue
    op, psn = int(op), int(psn)
    if src == "10.0.3.2" and op in (6, 7, 8, 10):  # RDMA WRITE first/middle/last/only
        if acked is None:
            acked = first = psn
        lead.append(diff(psn, acked))
        if ackreq in ("1", "True"):
            asks.append(diff(psn, first) % 300)
    elif src != "10.0.3.2" and op == 17 and acked is not None:  # ACKNOWLEDGE
        acked = (psn + 1) % M
print("request packets", len(lead), "most PSNs ahead of the ACKs", max(lead),
      "times at that", lead.count(max(lead)))
print("AckReq on packets (of 300)", sorted(collections.Counter(asks)))
'
echo "capture: $out/b.pcap"
