#!/usr/bin/env bash
# The wire's lessons on real Soft-RoCE: rdmatour server in QEMU guest A
# (10.0.3.1), client in guest B (10.0.3.2), each side --backend rdma as
# root, so that the side whose peer must lose a packet drops it on its
# way in with an nftables rule (steps/impair_real.go, verbs/rdmacore
# netfilter.go). tcpdump in guest A captures every RoCEv2 packet that
# crosses the wire, the lost ones too (its AF_PACKET tap sees a packet
# before netfilter's input hook drops it). Then TestSimWireFaultsMatchRxe
# holds the simulated NIC's capture of each lesson against these.
#   scripts/wirefaults.sh            (root; RDMATOUR_QEMU_KEEP=1 keeps the
#                                     captures, to refresh wire/testdata)
# RDMATOUR_WIREFAULTS_CASES="lost-write" runs only the lessons named.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/qemu/ensure-deps.sh
out=$(mktemp -d /tmp/rdmatour-wirefaults.XXXXXX)   # on the / both guests share
chmod 755 "$out"
[[ -n ${RDMATOUR_QEMU_KEEP:-} ]] || trap 'rm -rf "$out"' EXIT
go build -o "$out/rdmatour" ./cmd/rdmatour
go test -c -o "$out/cmd.test" ./cmd/rdmatour
printf '%s\n' ${RDMATOUR_WIREFAULTS_CASES:-lost-write lost-ack peer-vanished retry-zero lost-read-response} > "$out/cases"

# counters.sh NAME SIDE: rxe0's device counters into NAME.SIDE.before;
# counters.sh NAME SIDE after: what moved since then on this host (the
# CM's MADs included), printed and kept in NAME.SIDE.counters.
cat > "$out/counters.sh" <<'SCRIPT'
snap() { for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do echo "${f##*/} $(cat "$f")"; done | LC_ALL=C sort; }
if [ -z "$3" ]; then snap > "$1.$2.before"; exit 0; fi
snap | LC_ALL=C join "$1.$2.before" - | awk '$3 != $2 { printf "%s +%d ", $1, $3 - $2 }' > "$1.$2.counters"
echo "$2 ${1##*/} device counters: $(cat "$1.$2.counters")"
SCRIPT

cat > "$out/a.sh" <<SCRIPT
# Guest A: for each lesson, capture and run the server.
nic=\$(ip -o link | awk -F': ' '\$2 != "lo" {print \$2; exit}')
while read -r name; do
	tcpdump -i "\$nic" -U -w $out/\$name.pcap udp port 4791 2> $out/\$name.tcpdump.log &
	dump=\$!
	sleep 1
	start=\$(date +%s.%N)
	bash $out/counters.sh $out/\$name server
	$out/rdmatour server --backend rdma --plain --auto --timeout 60s --wait-client 120s --lesson \$name > $out/\$name.server.log 2>&1 &
	srv=\$!
	until grep -q 'rdma_listen' $out/\$name.server.log 2>/dev/null || ! kill -0 \$srv 2>/dev/null; do sleep 0.2; done
	touch $out/\$name.listening
	wait \$srv; echo "\$? " > $out/\$name.server.rc
	bash $out/counters.sh $out/\$name server after
	sleep 1; kill -INT \$dump; wait \$dump
	echo "server \$name exited \$(cat $out/\$name.server.rc)after \$(awk "BEGIN { printf \"%.1f\", \$(date +%s.%N) - \$start }") s; tables left: \$(nft list tables | wc -l)"
done < $out/cases
SCRIPT

cat > "$out/b.sh" <<SCRIPT
# Guest B: for each lesson, wait for A's server, then run the client.
while read -r name; do
	i=0
	until [ -e $out/\$name.listening ]; do
		i=\$((i + 1)); [ \$i -gt 600 ] && { echo "no server for \$name"; exit 1; }
		sleep 0.2
	done
	bash $out/counters.sh $out/\$name client
	$out/rdmatour client 10.0.3.1 --backend rdma --plain --auto --timeout 60s --lesson \$name > $out/\$name.client.log 2>&1
	rc=\$?
	bash $out/counters.sh $out/\$name client after
	echo "client \$name exited \$rc; tables left: \$(nft list tables | wc -l)"
	[ \$rc -eq 0 ] || { tail -40 $out/\$name.client.log; exit 1; }
done < $out/cases
SCRIPT

start=$SECONDS
scripts/qemu/run-two-guests.sh --timeout 900 "$out/a.sh" "$out/b.sh"
echo "wirefaults: guests done after $((SECONDS - start)) s; captures in $out"
(cd cmd/rdmatour && RDMATOUR_WIREFAULTS_DIR=$out "$out/cmd.test" -test.run TestSimWireFaultsMatchRxe -test.v -test.count=1)
