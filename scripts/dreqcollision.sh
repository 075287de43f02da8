#!/usr/bin/env bash
# A DREQ collision on Soft-RoCE: both sides of one RC connection call
# rdma_disconnect at (nearly) the same moment, between two QEMU guests
# (scripts/qemu/run-two-guests.sh), with tcpdump on UDP 4791 in guest A.
# The program is scripts/qemu/dreq-collision.c; this host starts both
# sides' disconnects by creating one file that both spin on. Each round
# is one connection and one capture, $OUT/round-N.pcap, with both sides'
# timings in $OUT/round-N.{server,client}.log; the capture of the
# collision that wire/testdata keeps came from here.
#   scripts/dreqcollision.sh [ROUNDS]   (root; about a minute under TCG)
# RDMATOUR_DREQ_OUT=DIR keeps the results in DIR (default: a temporary
# directory, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-6}
scripts/qemu/ensure-deps.sh
out=${RDMATOUR_DREQ_OUT:-$(mktemp -d /tmp/rdmatour-dreq.XXXXXX)}   # on the / both guests share
mkdir -p "$out"
chmod 755 "$out"
[[ -n ${RDMATOUR_DREQ_OUT:-} ]] || trap 'rm -rf "$out"' EXIT
gcc -std=c99 -Wall -Werror -O2 -o "$out/dreq-collision" scripts/qemu/dreq-collision.c -libverbs -lrdmacm

cat > "$out/a.sh" <<SCRIPT
nic=\$(ip -o link | awk -F': ' '\$2 != "lo" {print \$2; exit}')
for i in \$(seq $rounds); do
	tcpdump -i "\$nic" -U -w $out/round-\$i.pcap udp port 4791 2> $out/round-\$i.tcpdump.log &
	dump=\$!
	sleep 1
	$out/dreq-collision server 10.0.3.1 \$((7470 + i)) $out/go.\$i > $out/round-\$i.server.log 2>&1 &
	srv=\$!
	until grep -q listening $out/round-\$i.server.log || ! kill -0 \$srv 2>/dev/null; do sleep 0.05; done
	touch $out/listening.\$i
	until grep -q established $out/round-\$i.server.log || ! kill -0 \$srv 2>/dev/null; do sleep 0.05; done
	touch $out/a-established.\$i
	wait \$srv || echo "server round \$i failed"
	sleep 1; kill -INT \$dump; wait \$dump
	sed "s/^/round \$i server: /" $out/round-\$i.server.log
done
SCRIPT

cat > "$out/b.sh" <<SCRIPT
for i in \$(seq $rounds); do
	until [ -e $out/listening.\$i ]; do sleep 0.05; done
	$out/dreq-collision client 10.0.3.1 \$((7470 + i)) $out/go.\$i > $out/round-\$i.client.log 2>&1 &
	cli=\$!
	until grep -q established $out/round-\$i.client.log || ! kill -0 \$cli 2>/dev/null; do sleep 0.05; done
	touch $out/b-established.\$i
	wait \$cli || echo "client round \$i failed"
	sed "s/^/round \$i client: /" $out/round-\$i.client.log
done
SCRIPT

# The host says go once both sides of a round are established.
(
	for i in $(seq "$rounds"); do
		until [[ -e $out/a-established.$i && -e $out/b-established.$i ]]; do sleep 0.05; done
		sleep 0.5
		touch "$out/go.$i"
	done
) &
starter=$!
scripts/qemu/run-two-guests.sh --timeout 600 "$out/a.sh" "$out/b.sh" || { kill "$starter" 2>/dev/null; exit 1; }
wait "$starter"
for i in $(seq "$rounds"); do
	echo "round $i:"
	tshark -r "$out/round-$i.pcap" -t r -T fields -e frame.time_relative -e ip.src -e infiniband.mad.attributeid -e _ws.col.Info 2>/dev/null || true
done
