package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/wire"
)

// TestSimWireFaultsMatchRxe: for each wire lesson, the simulated NIC's
// transport packets (the client's --pcap) are those Soft-RoCE sent
// between two QEMU guests for the same lesson, the receiving host
// dropping the lost ones with nftables (scripts/wirefaults.sh; its
// captures are kept in wire/testdata, or read from
// RDMATOUR_WIREFAULTS_DIR): the same opcodes, PSNs, NAK syndromes and
// retransmissions, in the same order. What may differ is time (rxe's
// ACK timeout against the sim's, TCG's pace), so no time is compared;
// and the CM's MADs, whose order at the disconnect TestSimWireMatchesRxe
// settles, are left out.
//
// tcpdump in guest A saw every packet that crossed the wire, the lost
// ones too (AF_PACKET taps a frame before netfilter's input hook drops
// it), while the sim's pcap leaves a lost packet out (the receiver never
// had it): the lost ones are taken out of the rxe capture by the lesson's
// own numbering, which the test restates (steps/lesson_wire.go).
func TestSimWireFaultsMatchRxe(t *testing.T) {
	for _, tc := range []struct {
		lesson string
		// loser is the side whose packets are lost, lost which of them
		// (numbered from 1 as that side sends them; nil: all).
		loser string
		lost  []int
	}{
		{"lost-write", "C", []int{2}},
		{"lost-ack", "S", []int{1}},
		{"peer-vanished", "C", nil},
		{"retry-zero", "C", []int{1}},
		{"lost-read-response", "S", []int{2}},
	} {
		t.Run(tc.lesson, func(t *testing.T) {
			t.Parallel()
			dir := os.Getenv("RDMATOUR_WIREFAULTS_DIR")
			rxePath := filepath.Join(dir, tc.lesson+".pcap")
			if dir == "" {
				rxePath = filepath.Join("..", "..", "wire", "testdata", "rxe-wire-"+tc.lesson+".pcap")
			}
			rxe := transportSeq(pcapPackets(t, rxePath))
			arrived := withoutLost(rxe, tc.loser, tc.lost)
			pcap := filepath.Join(t.TempDir(), "client.pcap")
			common := []string{"--port", freePort(t), "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "30s", "--lesson", tc.lesson}
			srv := start(t, nil, append([]string{"server"}, common...)...)
			srv.waitFor(t, "rdma_listen(", 20*time.Second)
			cli := start(t, nil, append([]string{"client", "127.0.0.1", "--pcap", pcap}, common...)...)
			if code := cli.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("client exit %d:\n%s", code, cli.out)
			}
			if code := srv.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("server exit %d:\n%s", code, srv.out)
			}
			t.Logf("Soft-RoCE sent: %s", strings.Join(rxe, " / "))
			if len(arrived) == len(rxe) {
				t.Fatalf("no packet of %s was lost on Soft-RoCE: %s", tc.loser, strings.Join(rxe, " / "))
			}
			sim := transportSeq(pcapPackets(t, pcap))
			if got, want := strings.Join(sim, " / "), strings.Join(arrived, " / "); got != want {
				t.Errorf("simulated NIC's transport packets:\n got %s\nSoft-RoCE's that arrived:\n     %s\n(all Soft-RoCE sent: %s)", got, want, strings.Join(rxe, " / "))
			}
		})
	}
}

// transportSeq is a capture's RC packets, each as its sender (S for a
// response: an ACK, a READ response, an atomic's; else C: in the wire
// lessons only the client asks), its opcode (an ACK with its syndrome)
// and its PSN counted from the client's first, in whose space the
// server's responses are too. QP numbers cannot tell the sides apart:
// two fresh rxe devices both number their first QP 0x11.
func transportSeq(ps []wire.Packet) []string {
	var out []string
	var base uint32
	first := true
	for _, p := range ps {
		if p.BTH.DestQP == 1 {
			continue // a MAD
		}
		if first {
			base, first = p.BTH.PSN, false
		}
		op := p.BTH.Opcode
		kind, from := op.String(), "C"
		switch {
		case op == wire.RCAcknowledge && p.AETH != nil:
			kind, from = kind+" "+p.AETH.Syndrome.String(), "S"
		case op >= wire.RCReadResponseFirst && op <= wire.RCAtomicAcknowledge:
			from = "S"
		}
		out = append(out, fmt.Sprintf("%s %s +%d", from, kind, (p.BTH.PSN-base)&0xffffff))
	}
	return out
}

// withoutLost drops from seq the packets of side that lost numbers (nil:
// all of them), numbered from 1 as that side sent them.
func withoutLost(seq []string, side string, lost []int) []string {
	var out []string
	n := 0
	for _, s := range seq {
		if strings.HasPrefix(s, side+" ") {
			n++
			if lost == nil || slices.Contains(lost, n) {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}
