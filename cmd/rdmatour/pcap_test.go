package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/wire"
)

// TestSimWireMatchesRxe: the client's --pcap on the simulated NIC holds
// the same sequence of packets that tcpdump captured between two QEMU
// guests on Soft-RoCE for the same tour (wire/testdata, taken by
// scripts/twohosts.sh with server and client --plain --auto).
//
// Two --auto sides race to disconnect: whoever calls rdma_disconnect first
// sends the DREQ, and if both do at once two DREQs cross (on rxe too). Most
// captures in testdata have the server's DREQ answered by the client's
// DREP (doorbell and no-remote-write have the client's), so here the
// client waits before its disconnect step until the server has finished;
// the client's own capture then holds the whole exchange.
// In the no-recv lesson and the read and atomic tours the server waits for
// the client to hang up (the client's DREQ), so there the client pauses
// before its teardown instead.
// (Its RNR NAK no longer depends on timing: the server's late RECV waits
// for it.)
func TestSimWireMatchesRxe(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		// pause is the client's disconnect step ("" = "disconnect").
		pause string
		// cliFlags go to the client only.
		cliFlags []string
	}{
		{"send", []string{"--notify", "send"}, "", nil},
		{"doorbell", []string{"--notify", "doorbell"}, "", nil},
		{"imm", []string{"--notify", "imm"}, "", nil},
		{"bad-rkey", []string{"--lesson", "bad-rkey"}, "", nil},
		{"out-of-bounds", []string{"--lesson", "out-of-bounds"}, "", nil},
		{"no-remote-write", []string{"--lesson", "no-remote-write"}, "", nil},
		{"htonl-address", []string{"--lesson", "htonl-address"}, "", nil},
		{"doorbell-ordering", []string{"--lesson", "doorbell-ordering"}, "", nil},
		{"post-before-connect", []string{"--lesson", "post-before-connect"}, "", nil},
		// The server waits for the client to hang up: pause after it did.
		{"no-recv", []string{"--lesson", "no-recv"}, "teardown", nil},
		{"manual", []string{"--track", "manual"}, "disconnect-manual", nil},
		{"large-write", []string{"--notify", "send"}, "", []string{"--message-size", "3000"}},
		{"read", []string{"--tour", "read"}, "teardown", nil},
		{"atomic", []string{"--tour", "atomic"}, "teardown", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := kindsOf(t, filepath.Join("..", "..", "wire", "testdata", "rxe-two-hosts-"+tc.name+".pcap"))
			pcap := filepath.Join(t.TempDir(), "client.pcap")
			port := freePort(t)
			common := append([]string{"--port", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s"}, tc.flags...)
			srv := start(t, nil, append([]string{"server"}, common...)...)
			srv.waitFor(t, "rdma_listen(", 20*time.Second)
			pause := tc.pause
			if pause == "" {
				pause = "disconnect"
			}
			cli := start(t, nil, append(append([]string{"client", "127.0.0.1", "--pcap", pcap, "--pause-at", pause}, common...), tc.cliFlags...)...)
			if code := srv.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("server exit %d:\n%s\nclient:\n%s", code, srv.out, cli.out)
			}
			fmt.Fprintln(cli.stdin) // the client may disconnect now
			if code := cli.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("client exit %d:\n%s", code, cli.out)
			}
			if got := kindsOf(t, pcap); got != want && !(tc.name == "post-before-connect" && got == interleavedEarlyWrite) {
				t.Errorf("simulated NIC's wire:\n got %s\nSoft-RoCE's:\n     %s", got, want)
			}
			// The send capture was the guests' first: QP1's PSNs start at 0.
			rxeMADs := madHeaders(t, filepath.Join("..", "..", "wire", "testdata", "rxe-two-hosts-"+tc.name+".pcap"), tc.name == "send")
			if got := madHeaders(t, pcap, tc.name == "send"); got != rxeMADs {
				t.Errorf("the MADs' headers:\n got %s\nSoft-RoCE's:\n     %s", got, rxeMADs)
			}
		})
	}
}

// TestSimWireMatchesRxeUD is TestSimWireMatchesRxe for --tour ud: SIDR
// request and reply, then the client's two UD SEND_ONLY datagrams with a
// DETH and the server's answer. Both sides pause where the guests' run
// had them in order (the early datagram before the server's RECV, the
// second after), so the client sends no repeat while it awaits the answer.
func TestSimWireMatchesRxeUD(t *testing.T) {
	want := kindsOf(t, filepath.Join("..", "..", "wire", "testdata", "rxe-two-hosts-ud.pcap"))
	pcap := filepath.Join(t.TempDir(), "client.pcap")
	common := []string{"--port", freePort(t), "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s", "--tour", "ud"}
	srv := start(t, nil, append([]string{"server", "--pause-at", "ud-post-recv"}, common...)...)
	srv.waitFor(t, "rdma_listen(", 20*time.Second)
	cli := start(t, nil, append([]string{"client", "127.0.0.1", "--pcap", pcap, "--pause-at", "ud-send"}, common...)...)
	cli.waitFor(t, ": SEND the message", 20*time.Second) // the early datagram is out
	fmt.Fprintln(srv.stdin)
	srv.waitFor(t, ": Poll for a datagram", 20*time.Second) // the RECV is posted
	fmt.Fprintln(cli.stdin)
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s\nclient:\n%s", code, srv.out, cli.out)
	}
	if code := cli.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("client exit %d:\n%s", code, cli.out)
	}
	if got := kindsOf(t, pcap); got != want {
		t.Errorf("simulated NIC's wire:\n got %s\nSoft-RoCE's:\n     %s", got, want)
	}
	rxeMADs := madHeaders(t, filepath.Join("..", "..", "wire", "testdata", "rxe-two-hosts-ud.pcap"), true)
	if got := madHeaders(t, pcap, true); got != rxeMADs {
		t.Errorf("the MADs' headers:\n got %s\nSoft-RoCE's:\n     %s", got, rxeMADs)
	}
	if !strings.Contains(srv.out.String(), steps.DefaultUDMsg) {
		t.Errorf("the server did not receive the second datagram:\n%s", srv.out)
	}
}

// interleavedEarlyWrite is post-before-connect's other order: the early
// WRITE's ACK before the second WRITE leaves. rxe produces both orders
// from run to run (measured between two guests), and so does the sim,
// depending on when the second post comes.
const interleavedEarlyWrite = "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE ACK / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE ACK / RC SEND_ONLY / RC ACKNOWLEDGE ACK / CM DREQ / CM DREP"

// madHeaders lists what the CM MADs' headers say beyond their kind:
// AckReq, the high half of the transaction ID, which earlier MAD's
// transaction ID each one repeats (a reply echoes its request's, RTU
// the REQ's, DREP the DREQ's), and with psns QP1's PSN of each, which
// each sending host counts.
func madHeaders(t *testing.T, path string, psns bool) string {
	t.Helper()
	var out []string
	var tids []uint64
	var dreq uint64
	for _, p := range pcapPackets(t, path) {
		if p.BTH.DestQP != 1 {
			continue
		}
		m, err := wire.DecodeMAD(p.Payload)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		s := fmt.Sprintf("%s ackreq=%v hi_tid=%d", wire.Kind(p), p.BTH.AckReq, m.TransactionID>>32)
		switch kind := wire.Kind(p); {
		case kind == "CM DREQ":
			// Its transaction ID is the disconnecting side's: the REQ's
			// when the client disconnects first, a new one when the
			// server does; which one races (see above).
			dreq = m.TransactionID
		case kind == "CM DREP":
			s += fmt.Sprintf(" echoes-DREQ=%v", m.TransactionID == dreq)
		default:
			same := slices.Index(tids, m.TransactionID)
			if same < 0 {
				same = len(tids)
				tids = append(tids, m.TransactionID)
			}
			s += fmt.Sprintf(" tid#%d", same)
		}
		if psns {
			s += fmt.Sprintf(" psn=%d", p.BTH.PSN)
		}
		out = append(out, s)
	}
	return strings.Join(out, " / ")
}

// kindsOf decodes a pcap and lists its packets' kinds.
func kindsOf(t *testing.T, path string) string {
	t.Helper()
	var kinds []string
	for _, p := range pcapPackets(t, path) {
		kinds = append(kinds, wire.Kind(p))
	}
	return strings.Join(kinds, " / ")
}

// pcapPackets decodes every frame of a pcap, checking each frame's ICRC
// on the way.
func pcapPackets(t *testing.T, path string) []wire.Packet {
	t.Helper()
	var ps []wire.Packet
	for i, b := range pcapFrames(t, path) {
		fr, err := wire.DecodeFrame(b)
		if err != nil || !fr.ICRCValid {
			t.Fatalf("%s frame %d: err %v, ICRC valid %v", path, i+1, err, fr.ICRCValid)
		}
		ps = append(ps, fr.Packet)
	}
	return ps
}

func TestPcapFlagErrors(t *testing.T) {
	p := start(t, nil, "server", "--backend", "sim", "--plain", "--auto", "--pcap", "/nonexistent-dir/x.pcap")
	if code := p.wait(t, 20*time.Second); code != 2 {
		t.Errorf("exit %d, want 2 (usage):\n%s", code, p.out)
	}
	if !strings.Contains(p.out.String(), "--pcap") {
		t.Errorf("the error does not name --pcap:\n%s", p.out)
	}
}

// pcapFrames reads every frame of a pcap file.
func pcapFrames(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	frames, err := wire.ReadPcap(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return frames
}
