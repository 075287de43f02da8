package capture

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/wire"
)

func TestTracerKeepsAndWritesPcap(t *testing.T) {
	var pcap bytes.Buffer
	tr, err := Trace("lo", []netip.Addr{netip.MustParseAddr("127.0.0.1")}, &pcap)
	var perm *NoPermissionError
	if errors.As(err, &perm) {
		t.Skipf("no CAP_NET_RAW here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	// Unconnected, so the ICMP "port unreachable" of one datagram does not
	// fail the next write.
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for psn := uint32(1); psn <= 3; psn++ {
		p := wire.Packet{BTH: wire.BTH{Opcode: wire.RCSendOnly, DestQP: 0x22, PSN: psn}, Payload: []byte("hi!\x00")}
		b, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.WriteTo(b, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: wire.RoCEv2Port}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	var seen []Seen
	for time.Now().Before(deadline) {
		if seen = tr.Frames(0, nil); len(seen) >= 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if len(seen) < 3 {
		t.Fatalf("tracer kept %d frames, want at least 3", len(seen))
	}
	if !seen[0].Outbound || seen[0].Frame.Packet.BTH.DestQP != 0x22 {
		t.Errorf("first frame: outbound %v, %s", seen[0].Outbound, seen[0].Frame.Packet.Summary())
	}
	if later := tr.Frames(seen[0].Seq, nil); len(later) != len(tr.Frames(0, nil))-1 {
		t.Errorf("Frames(after) does not skip what was seen")
	}
	frames, err := wire.ReadPcap(&pcap)
	if err != nil || len(frames) < 3 {
		t.Fatalf("pcap holds %d frames (%v)", len(frames), err)
	}
}

func TestBetween(t *testing.T) {
	a, b, c := netip.MustParseAddr("10.0.3.1"), netip.MustParseAddr("10.0.3.2"), netip.MustParseAddr("10.0.3.3")
	frame := func(src, dst netip.Addr, qp uint32) wire.Frame {
		return wire.Frame{Src: src, Dst: dst, Packet: wire.Packet{BTH: wire.BTH{DestQP: qp}}}
	}
	match := Between(a, b, 0x11, 0x12)
	for _, tc := range []struct {
		name string
		f    wire.Frame
		want bool
	}{
		{"to the server's QP", frame(b, a, 0x11), true},
		{"ACK to the client's QP", frame(a, b, 0x12), true},
		{"CM MAD on QP1", frame(a, b, 1), true},
		{"another QP between the same hosts", frame(a, b, 0x13), false},
		{"a third host", frame(c, a, 0x11), false},
	} {
		if got := match(tc.f); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Frames the kernel queued for the socket before Close still reach the
// pcap, however far the reader got: the ud tour's server tears down right
// after its last datagram arrives (seen between two guests on rxe).
func TestTracerCloseKeepsQueuedFrames(t *testing.T) {
	var pcap bytes.Buffer
	tr, err := Trace("lo", []netip.Addr{netip.MustParseAddr("127.0.0.1")}, &pcap)
	var perm *NoPermissionError
	if errors.As(err, &perm) {
		t.Skipf("no CAP_NET_RAW here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const sent = 20
	for psn := uint32(1); psn <= sent; psn++ {
		p := wire.Packet{BTH: wire.BTH{Opcode: wire.RCSendOnly, DestQP: 0x22, PSN: psn}, Payload: []byte("hi!\x00")}
		b, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.WriteTo(b, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: wire.RoCEv2Port}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	frames, err := wire.ReadPcap(&pcap)
	if err != nil {
		t.Fatal(err)
	}
	psns := map[uint32]bool{}
	for _, b := range frames {
		if fr, err := wire.DecodeFrame(b); err == nil {
			psns[fr.Packet.BTH.PSN] = true
		}
	}
	if len(psns) != sent {
		t.Errorf("the pcap holds %d of the %d frames sent before Close", len(psns), sent)
	}
}
