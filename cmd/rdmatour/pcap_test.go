package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/wire"
)

// TestSimWireMatchesRxe: the client's --pcap on the simulated NIC holds
// the same sequence of packets that tcpdump captured between two QEMU
// guests on Soft-RoCE for the same tour (wire/testdata, taken by
// scripts/twohosts.sh with server and client --plain --auto).
//
// Two --auto sides race to disconnect: whoever calls rdma_disconnect first
// sends the DREQ, and if both do at once two DREQs cross (on rxe too). The
// capture in testdata has the server's DREQ answered by the client's DREP,
// so here the client waits before its disconnect step until the server
// has finished; the client's own capture then holds the whole exchange.
// In the no-recv lesson the server waits for the client to hang up, so
// there the client pauses before its teardown instead. (Its RNR NAK no
// longer depends on timing: the server's late RECV waits for it.)
func TestSimWireMatchesRxe(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		// pause is the client's disconnect step ("" = "disconnect").
		pause string
	}{
		{"send", []string{"--notify", "send"}, ""},
		{"doorbell", []string{"--notify", "doorbell"}, ""},
		{"imm", []string{"--notify", "imm"}, ""},
		{"bad-rkey", []string{"--lesson", "bad-rkey"}, ""},
		{"out-of-bounds", []string{"--lesson", "out-of-bounds"}, ""},
		{"no-remote-write", []string{"--lesson", "no-remote-write"}, ""},
		{"htonl-address", []string{"--lesson", "htonl-address"}, ""},
		{"doorbell-ordering", []string{"--lesson", "doorbell-ordering"}, ""},
		{"post-before-connect", []string{"--lesson", "post-before-connect"}, ""},
		// The server waits for the client to hang up: pause after it did.
		{"no-recv", []string{"--lesson", "no-recv"}, "teardown"},
		{"manual", []string{"--track", "manual"}, "disconnect-manual"},
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
			cli := start(t, nil, append([]string{"client", "127.0.0.1", "--pcap", pcap, "--pause-at", pause}, common...)...)
			if code := srv.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("server exit %d:\n%s\nclient:\n%s", code, srv.out, cli.out)
			}
			fmt.Fprintln(cli.stdin) // the client may disconnect now
			if code := cli.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("client exit %d:\n%s", code, cli.out)
			}
			if got := kindsOf(t, pcap); got != want {
				t.Errorf("simulated NIC's wire:\n got %s\nSoft-RoCE's:\n     %s", got, want)
			}
		})
	}
}

// kindsOf decodes a pcap and lists its packets' kinds, checking each
// frame's ICRC on the way.
func kindsOf(t *testing.T, path string) string {
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
	var kinds []string
	for i, b := range frames {
		fr, err := wire.DecodeFrame(b)
		if err != nil || !fr.ICRCValid {
			t.Fatalf("%s frame %d: err %v, ICRC valid %v", path, i+1, err, fr.ICRCValid)
		}
		kinds = append(kinds, wire.Kind(fr.Packet))
	}
	return strings.Join(kinds, " / ")
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
