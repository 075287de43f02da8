package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/wire"
)

// TestMessageSizePcapSegments is the concept-mtu page's command: a client
// with --message-size 3000 --pcap on the simulated NIC writes a capture
// whose WRITE is FIRST, MIDDLE and LAST at the 1024-byte path MTU, with
// consecutive PSNs and valid ICRCs; Wireshark's dissector (tshark, when
// installed) finds nothing malformed in it. The server shows the bytes.
func TestMessageSizePcapSegments(t *testing.T) {
	pcap := filepath.Join(t.TempDir(), "client.pcap")
	port := freePort(t)
	common := []string{"--port", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s"}
	srv := start(t, nil, append([]string{"server"}, common...)...)
	srv.waitFor(t, "rdma_listen(", 20*time.Second)
	cli := start(t, nil, append([]string{"client", "127.0.0.1", "--message-size", "3000", "--pcap", pcap}, common...)...)
	if code := cli.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("client exit %d:\n%s", code, cli.out)
	}
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	if !strings.Contains(srv.out.String(), "hello from rdmatour client via RDMA WRITE"+strings.Repeat(" ", 100)) {
		t.Errorf("the server does not show the padded message:\n%s", srv.out)
	}
	writes := writePackets(t, pcap)
	want := []wire.Opcode{wire.RCWriteFirst, wire.RCWriteMiddle, wire.RCWriteLast}
	if len(writes) != len(want) {
		t.Fatalf("%d WRITE packets in the capture, want FIRST, MIDDLE, LAST", len(writes))
	}
	for i, p := range writes {
		if p.BTH.Opcode != want[i] {
			t.Errorf("packet %d is %s, want %s", i, p.BTH.Opcode, want[i])
		}
		if i > 0 && p.BTH.PSN != (writes[i-1].BTH.PSN+1)&0xFFFFFF {
			t.Errorf("packet %d: PSN %d after %d", i, p.BTH.PSN, writes[i-1].BTH.PSN)
		}
	}
	if n := len(writes[0].Payload) + len(writes[1].Payload) + len(writes[2].Payload); len(writes[0].Payload) != 1024 || n != 3000 {
		t.Errorf("payloads %d+%d+%d, want 1024+1024+952", len(writes[0].Payload), len(writes[1].Payload), len(writes[2].Payload))
	}
	if writes[0].RETH == nil || writes[0].RETH.DMALen != 3000 {
		t.Errorf("FIRST's RETH %+v, want DMA length 3000", writes[0].RETH)
	}
	tsharkClean(t, pcap)
}

// writePackets decodes a capture (ICRCs checked) and keeps the RC WRITEs.
func writePackets(t *testing.T, path string) []wire.Packet {
	t.Helper()
	var out []wire.Packet
	for _, p := range pcapPackets(t, path) {
		if op := p.BTH.Opcode; op >= wire.RCWriteFirst && op <= wire.RCWriteOnlyWithImm {
			out = append(out, p)
		}
	}
	return out
}

// tsharkClean runs Wireshark's dissectors over the capture, when tshark
// is installed, and fails on any malformed packet or expert entry.
func tsharkClean(t *testing.T, pcap string) {
	t.Helper()
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Log("tshark is not installed: the capture is checked by the wire package only")
		return
	}
	out, err := exec.Command("tshark", "-r", pcap, "-Y", "_ws.malformed || _ws.expert").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("tshark finds malformed packets or expert entries:\n%s", s)
	}
	all, err := exec.Command("tshark", "-r", pcap).Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	for _, want := range []string{"RDMA Write First", "RDMA Write Middle", "RDMA Write Last"} {
		if !strings.Contains(string(all), want) {
			t.Errorf("tshark does not show %q:\n%s", want, all)
		}
	}
}
