package wire

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The captures in testdata were taken by scripts/twohosts.sh: tcpdump in
// QEMU guest A while rdmatour ran between two guests on Soft-RoCE (Linux
// 6.1 rxe, rdma-core 44). They are the ground truth for this package:
// rxe computed every ICRC, the kernel's CM built every MAD.

// lessonSequences are the packet kinds the lessons put on the wire
// between the two guests; the tours' own are in tourwire.go.
var lessonSequences = map[string]string{
	"bad-rkey": "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE NAK / CM DREQ / CM DREP",
	// The lessons whose WRITE is refused end the same way as bad-rkey.
	"out-of-bounds":   "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE NAK / CM DREQ / CM DREP",
	"no-remote-write": "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE NAK / CM DREQ / CM DREP",
	"htonl-address":   "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE NAK / CM DREQ / CM DREP",
	// The server's late RECV waits for its RNR NAK (steps/rnrwait.go), so
	// even as two --auto processes the SEND is refused: rnr_retry_count 0
	// gives up at the first RNR NAK.
	"no-recv":           "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE ACK / RC SEND_ONLY / RC ACKNOWLEDGE RNR NAK / CM DREQ / CM DREP",
	"doorbell-ordering": "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE ACK / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE ACK / CM DREQ / CM DREP",
	// rxe queued the zero-length WRITE posted before RTS; it goes out with
	// the real one.
	"post-before-connect": "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE ACK / RC ACKNOWLEDGE ACK / RC SEND_ONLY / RC ACKNOWLEDGE ACK / CM DREQ / CM DREP",
	"manual":              "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_ONLY / RC ACKNOWLEDGE ACK / RC SEND_ONLY / RC ACKNOWLEDGE ACK / CM DREQ / CM DREP",
	// --message-size 3000 on the client: rxe's 1024-byte path MTU cuts
	// the WRITE in three, one PSN each; the LAST asks for the one ACK.
	"large-write": "CM REQ / CM REP / CM RTU / RC RDMA_WRITE_FIRST / RC RDMA_WRITE_MIDDLE / RC RDMA_WRITE_LAST / RC ACKNOWLEDGE ACK / RC SEND_ONLY / RC ACKNOWLEDGE ACK / CM DREQ / CM DREP",
	// scripts/dreqcollision.sh: both sides call rdma_disconnect at once
	// and their DREQs cross. ib_cm answers a DREQ that arrives after its
	// own (IB_CM_DREQ_SENT -> IB_CM_DREQ_RCVD) with a DREP only when the
	// id is destroyed (cm_dreq_handler, cm_destroy_id); a side that gets
	// the peer's DREP first goes to timewait and sends none. Here both
	// destroyed their ids before the other's DREP arrived...
	"dreq-collision": "CM REQ / CM REP / CM RTU / CM DREQ / CM DREQ / CM DREP / CM DREP",
	// ...and here the client got the server's DREP before it destroyed
	// its id (2 of the 3 collisions in 6 rounds).
	"dreq-collision-timewait": "CM REQ / CM REP / CM RTU / CM DREQ / CM DREQ / CM DREP",
}

// twoHostSequence is the sequence measured in capture name: a tour's
// (tourWire) or a lesson's.
func twoHostSequence(name string) (string, bool) {
	for _, vs := range tourWire {
		for _, v := range vs {
			if v.Capture == name {
				return strings.Join(v.Kinds, " / "), true
			}
		}
	}
	seq, ok := lessonSequences[name]
	return seq, ok
}

func rxeCaptures(t *testing.T) map[string][][]byte {
	t.Helper()
	paths, _ := filepath.Glob("testdata/rxe-two-hosts-*.pcap")
	if len(paths) == 0 {
		t.Fatal("no rxe captures in testdata")
	}
	caps := map[string][][]byte{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		frames, err := ReadPcap(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		caps[strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "rxe-two-hosts-"), ".pcap")] = frames
	}
	return caps
}

// TestRxeCapturesRoundTrip: every frame rxe sent decodes, its ICRC
// verifies with ours, and encoding the decoded frame gives back exactly
// the bytes rxe put on the wire — headers, MADs and ICRC alike.
func TestRxeCapturesRoundTrip(t *testing.T) {
	for name, frames := range rxeCaptures(t) {
		var seq []string
		for i, b := range frames {
			fr, err := DecodeFrame(b)
			if err != nil {
				t.Errorf("%s frame %d: %v", name, i+1, err)
				continue
			}
			if !fr.ICRCValid {
				t.Errorf("%s frame %d (%s): ICRC does not verify", name, i+1, fr.Packet.Summary())
			}
			again, err := fr.Encode()
			if err != nil {
				t.Errorf("%s frame %d: re-encode: %v", name, i+1, err)
			} else if !bytes.Equal(again, b) {
				t.Errorf("%s frame %d (%s): re-encoded bytes differ\n rxe %x\n ours %x", name, i+1, fr.Packet.Summary(), b, again)
			}
			seq = append(seq, Kind(fr.Packet))
		}
		if want, _ := twoHostSequence(name); strings.Join(seq, " / ") != want {
			t.Errorf("%s: sequence\n got %s\nwant %s", name, strings.Join(seq, " / "), want)
		}
	}
}

// TestRxeCMFields reads what rdma_cm put in the REQ and REP: the values
// the tour teaches (private data sizes, the IP CM header, QPNs).
func TestRxeCMFields(t *testing.T) {
	frames := rxeCaptures(t)["send"]
	msgs := map[string]CMMessage{}
	for _, b := range frames {
		fr, err := DecodeFrame(b)
		if err != nil {
			t.Fatal(err)
		}
		if fr.Packet.DETH == nil {
			continue
		}
		m, _ := DecodeMAD(fr.Packet.Payload)
		msg, err := DecodeCM(m)
		if err != nil {
			t.Fatal(err)
		}
		msgs[msg.Name()] = msg
	}
	req, ok := msgs["REQ"].(*REQ)
	if !ok {
		t.Fatal("no REQ in the capture")
	}
	h := DecodeIPCM(req.PrivateData)
	if h.IPVersion != 4 || h.Src.String() != "10.0.3.2" || h.Dst.String() != "10.0.3.1" {
		t.Errorf("REQ IP CM header = %+v", h)
	}
	if req.ServiceID != ServiceIDForPort(7471) {
		t.Errorf("REQ service ID 0x%x, want RDMA_PS_TCP port 7471", req.ServiceID)
	}
	rep, ok := msgs["REP"].(*REP)
	if !ok {
		t.Fatal("no REP in the capture")
	}
	// The server's remote_info: a big-endian u64 address and u32 rkey.
	if rep.PrivateData[0] != 0 && rep.PrivateData[1] != 0 {
		t.Errorf("REP private data does not start with a user-space address: %x", rep.PrivateData[:16])
	}
}
