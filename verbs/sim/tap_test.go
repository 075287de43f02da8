package sim

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

// rxeSendTour is the sequence tcpdump saw between two Soft-RoCE guests for
// the tour with notify=send (wire/testdata/rxe-two-hosts-send.pcap).
const rxeSendTour = "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE ACK / RC SEND_ONLY / RC ACKNOWLEDGE ACK / CM DREQ / CM DREP"

// TestTapWritesTheRealWire runs the tour's verbs (connect, WRITE, SEND,
// disconnect) with the server's simulated NIC writing a pcap, and checks
// that the frames decode, their ICRCs verify, and the packet kinds come in
// the order Soft-RoCE sends them.
func TestTapWritesTheRealWire(t *testing.T) {
	var pcap bytes.Buffer
	srv, cli := tapPair(t, &pcap)
	data := srv.regMR(t, 4096, verbs.AccessLocalWrite|verbs.AccessRemoteWrite)
	recv := srv.regMR(t, 128, verbs.AccessLocalWrite)
	src := cli.regMR(t, 4096, verbs.AccessLocalWrite)
	must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 100, SGList: sge(recv, 0, 128)}))
	must(t, src.Write(0, []byte("hello from rdmatour client via RDMA WRITE\x00")))
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 300, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList: sge(src, 0, 42), RemoteAddr: data.Addr(), RKey: data.RKey()}))
	pollN(t, cli.cq, 1)
	must(t, src.Write(64, []byte("RDMA_WRITE_DONE\x00")))
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 200, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(src, 64, 16)}))
	pollN(t, cli.cq, 1)
	pollN(t, srv.cq, 1)
	must(t, srv.id.Disconnect())
	waitEvent(t, cli.ch, verbs.EventDisconnected)
	must(t, cli.id.Disconnect())
	waitEvent(t, srv.ch, verbs.EventDisconnected)
	teardown(t, srv, cli)

	frames, err := wire.ReadPcap(&pcap)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for i, b := range frames {
		f, err := wire.DecodeFrame(b)
		if err != nil {
			t.Fatalf("frame %d: %v", i+1, err)
		}
		if !f.ICRCValid {
			t.Errorf("frame %d: ICRC does not verify", i+1)
		}
		kinds = append(kinds, wire.Kind(f.Packet))
	}
	if got := strings.Join(kinds, " / "); got != rxeSendTour {
		t.Errorf("simulated wire:\n got %s\nwant %s (Soft-RoCE)", got, rxeSendTour)
	}
	tsharkReads(t, pcap.Bytes())
}

// tapPair is connectPair with a pcap on the server's NIC only.
func tapPair(t *testing.T, w *bytes.Buffer) (srv, cli *side) {
	t.Helper()
	return connectPair(t, pairCfg{cqe: 64, caps: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1},
		connect: verbs.ConnParam{RetryCount: 7, RNRRetryCount: 7}, accept: verbs.ConnParam{RNRRetryCount: 7},
		noCleanup: true, serverPcap: w})
}

func tsharkReads(t *testing.T, pcap []byte) {
	t.Helper()
	if _, err := exec.LookPath("tshark"); err != nil {
		return
	}
	path := t.TempDir() + "/sim.pcap"
	if err := os.WriteFile(path, pcap, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tshark", "-r", path, "-T", "fields", "-e", "_ws.malformed", "-e", "_ws.expert.severity").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	if s := strings.TrimSpace(strings.ReplaceAll(string(out), "\t", "")); s != "" {
		t.Errorf("tshark flags the simulated frames: %q", s)
	}
}
