package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
)

var (
	cliEnd = netip.MustParseAddrPort("10.0.3.2:40762")
	srvEnd = netip.MustParseAddrPort("10.0.3.1:7471")
)

// seg is a segment of the client's direction at seq (SYN at 1000).
func seg(seq uint32, payload []byte) TCPSegment {
	return TCPSegment{From: cliEnd, To: srvEnd, Seq: seq, Payload: payload}
}

// ethTCP is an Ethernet frame holding seg, padded to 60 bytes as a NIC
// pads a short frame.
func ethTCP(s TCPSegment, flags byte) []byte {
	f := make([]byte, 14, 64)
	binary.BigEndian.PutUint16(f[12:], 0x0800)
	ip := make([]byte, 20)
	ip[0], ip[8], ip[9] = 0x45, 64, 6
	binary.BigEndian.PutUint16(ip[2:], uint16(20+20+len(s.Payload)))
	src, dst := s.From.Addr().As4(), s.To.Addr().As4()
	copy(ip[12:], src[:])
	copy(ip[16:], dst[:])
	tcp := make([]byte, 20)
	binary.BigEndian.PutUint16(tcp[0:], s.From.Port())
	binary.BigEndian.PutUint16(tcp[2:], s.To.Port())
	binary.BigEndian.PutUint32(tcp[4:], s.Seq)
	tcp[12], tcp[13] = 5<<4, flags
	f = append(append(append(f, ip...), tcp...), s.Payload...)
	for len(f) < 60 {
		f = append(f, 0xee)
	}
	return f
}

func TestDecodeTCPSegment(t *testing.T) {
	s := seg(1001, []byte("MPA"))
	got, err := DecodeTCPSegment(ethTCP(s, 0x18))
	if err != nil || got.From != cliEnd || got.To != srvEnd || got.Seq != 1001 || string(got.Payload) != "MPA" || got.SYN {
		t.Fatalf("got %+v, %v", got, err)
	}
	if got, _ := DecodeTCPSegment(ethTCP(seg(1000, nil), 0x02)); !got.SYN || len(got.Payload) != 0 {
		t.Errorf("a SYN padded to 60 bytes: %+v (the padding is no payload)", got)
	}
	long := ethTCP(seg(1, make([]byte, 100)), 0x10)
	for _, tc := range []struct {
		name  string
		frame []byte
		want  error
	}{
		{"empty", nil, ErrNotTCP},
		{"ARP", append(append(make([]byte, 12), 0x08, 0x06), make([]byte, 40)...), ErrNotTCP},
		{"UDP", func() []byte { f := ethTCP(s, 0); f[14+9] = 17; return f }(), ErrNotTCP},
		{"fragment", func() []byte { f := ethTCP(s, 0); f[14+7] = 1; return f }(), ErrNotTCP},
		{"cut short", long[:80], ErrMalformed},
		{"data offset past the end", func() []byte { f := ethTCP(s, 0); f[14+20+12] = 15 << 4; return f }(), ErrMalformed},
		{"IP header length 0", func() []byte { f := ethTCP(s, 0); f[14] = 0x40; return f }(), ErrMalformed},
	} {
		if _, err := DecodeTCPSegment(tc.frame); !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestTCPReassembler: the bytes come out once each, in order, whatever
// order and repeats the capture saw them in; a hole that never fills is a
// gap at the end, and one that outgrows what TCP holds in flight is a gap
// at once.
func TestTCPReassembler(t *testing.T) {
	syn := TCPSegment{From: cliEnd, To: srvEnd, Seq: 1000, SYN: true}
	for _, tc := range []struct {
		name    string
		segs    []TCPSegment
		want    string
		gapAt   int // index of the Push that reports the gap, -1: none
		gapEnds bool
	}{
		{"in order", []TCPSegment{syn, seg(1001, []byte("abc")), seg(1004, []byte("def"))}, "abcdef", -1, false},
		{"retransmitted whole", []TCPSegment{syn, seg(1001, []byte("abc")), seg(1001, []byte("abc")), seg(1004, []byte("d"))}, "abcd", -1, false},
		{"retransmission overlapping", []TCPSegment{syn, seg(1001, []byte("abc")), seg(1002, []byte("bcde"))}, "abcde", -1, false},
		{"SYN repeated", []TCPSegment{syn, syn, seg(1001, []byte("x"))}, "x", -1, false},
		{"out of order, then filled", []TCPSegment{syn, seg(1004, []byte("def")), seg(1007, []byte("g")), seg(1001, []byte("abc"))}, "abcdefg", -1, false},
		{"hole never filled", []TCPSegment{syn, seg(1001, []byte("ab")), seg(1010, []byte("zz"))}, "ab", -1, true},
		{"hole outgrows the window", []TCPSegment{syn, seg(1001, []byte("ab")), seg(1010, make([]byte, maxHeld+1))}, "ab", 2, false},
		{"sequence wraps", []TCPSegment{{From: cliEnd, To: srvEnd, Seq: 0xffffffff, SYN: true}, seg(0, []byte("wr")), seg(2, []byte("ap"))}, "wrap", -1, false},
		{"no SYN seen", []TCPSegment{seg(5000, []byte("mid")), seg(5003, []byte("dle"))}, "middle", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r TCPReassembler
			var got []byte
			gapAt := -1
			for i, s := range tc.segs {
				b, err := r.Push(s)
				if err != nil {
					if !errors.Is(err, ErrTCPGap) || gapAt >= 0 {
						t.Fatalf("push %d: %v", i, err)
					}
					gapAt = i
				}
				got = append(got, b...)
			}
			endErr := r.End()
			if string(got) != tc.want || gapAt != tc.gapAt || (endErr != nil) != tc.gapEnds {
				t.Errorf("got %q, gap at push %d, end %v; want %q, gap at %d, gap at the end %v", got, gapAt, endErr, tc.want, tc.gapAt, tc.gapEnds)
			}
			if r.Midstream != !tc.segs[0].SYN {
				t.Errorf("Midstream %v with a first segment SYN=%v", r.Midstream, tc.segs[0].SYN)
			}
		})
	}
}

// events renders IWARPFlows' output one line each.
func events(evs []IWARPEvent) []string {
	var out []string
	for _, e := range evs {
		if e.Fault != FaultNone {
			out = append(out, fmt.Sprintf("%s > %s: fault %d: %v", e.From, e.To, e.Fault, e.Err))
			continue
		}
		out = append(out, fmt.Sprintf("%s > %s: %s", e.From, e.To, e.Msg.Summary()))
	}
	return out
}

// TestIWARPFlows feeds one direction as segments cut anywhere: each
// message comes out when its last byte does, and damage stops the
// direction with the fault that names it, never a misparse.
func TestIWARPFlows(t *testing.T) {
	req := mpaFrame(mpaReqKey, 2, []byte("hello"))
	write := fpdu(tagged(RDMAPWrite, true, 0x1a2b, 0x1000, []byte("data")))
	send := fpdu(untagged(RDMAPSend, 0, 1, 0, []byte("DONE")))
	stream := append(append(append([]byte(nil), req...), write...), send...)
	from := cliEnd.String() + " > " + srvEnd.String() + ": "
	full := []string{from + "MPA Request rev 2, 5 B private data", from + "RDMA Write STag 0x1a2b TO 0x1000, 4 B, last", from + "Send QN 0 MSN 1 MO 0, 4 B, last"}
	syn := TCPSegment{From: cliEnd, To: srvEnd, Seq: 1000, SYN: true}
	cut := func(b []byte, at ...int) []TCPSegment {
		out, prev := []TCPSegment{syn}, 0
		for _, a := range append(at, len(b)) {
			out = append(out, seg(1001+uint32(prev), b[prev:a]))
			prev = a
		}
		return out
	}
	garbled := append([]byte(nil), stream...)
	garbled[len(req)+2] = 0x80 // a tagged segment...
	binary.BigEndian.PutUint16(garbled[len(req):], 4)
	for _, tc := range []struct {
		name string
		segs []TCPSegment
		want []string
	}{
		{"one segment", cut(stream), full},
		{"a byte at a time", cut(stream, func() []int {
			var at []int
			for i := 1; i < len(stream); i++ {
				at = append(at, i)
			}
			return at
		}()...), full},
		{"cut inside the MPA frame and an FPDU", cut(stream, 7, 21, len(req)+3), full},
		{"retransmitted FPDU", append(cut(stream, len(req)+len(write)), seg(1001+uint32(len(req)), write)), full},
		{"truncated FPDU at the end", cut(stream[:len(stream)-3]), append(full[:2:2], from+"fault 4: the capture ends 25 bytes into a frame")},
		{"gap never filled", append(cut(req), seg(1001+uint32(len(req)+len(write)), send)), append(full[:1:1], from+"fault 1: a TCP segment is missing from the capture: 28 bytes arrived after byte 1030, which never did")},
		{"garbage instead of MPA", cut([]byte("SSH-2.0-OpenSSH_9.2\r\n")), []string{from + `fault 3: the stream does not begin with an MPA Request or Reply frame (it begins "SSH-2.0-OpenSSH_")`}},
		{"no SYN, but the capture joined before the MPA frame", cut(stream)[1:], full},
		{"malformed DDP", cut(garbled), append(full[:1:1], from+"fault 2: wire: malformed packet: tagged DDP segment of 4 bytes")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f IWARPFlows
			var evs []IWARPEvent
			for _, s := range tc.segs {
				evs = append(evs, f.Segment(s)...)
			}
			evs = append(evs, f.End()...)
			if got := events(evs); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	var f IWARPFlows
	mid := f.Segment(seg(5000, write))
	if len(mid) != 1 || mid[0].Fault != FaultNotMPA || !strings.Contains(mid[0].Err.Error(), "began after the connection did") {
		t.Errorf("a connection the capture joined late: %s", events(mid))
	}
	if more := f.Segment(seg(5000+uint32(len(write)), send)); len(more) != 0 {
		t.Errorf("a stopped direction went on: %s", events(more))
	}
}

// TestIWARPFlowsOnSiwCaptures: the live path (frame by frame through
// DecodeTCPSegment and IWARPFlows) finds in the captures made on siw0
// the same messages as the whole-file decoder (TestDecodeSiwCaptures).
func TestIWARPFlowsOnSiwCaptures(t *testing.T) {
	for _, tc := range []struct {
		file string
		port uint16
	}{{"testdata/siw-write.pcap", 7472}, {"testdata/siw-read.pcap", 7472}, {"testdata/siw-twohosts-write.pcap", 7471}, {"testdata/siw-twohosts-read.pcap", 7471}} {
		f, err := os.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		frames, err := ReadPcap(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var flows IWARPFlows
		byDir := map[string][]string{}
		for _, fr := range frames {
			s, err := DecodeTCPSegment(fr)
			if err != nil {
				t.Fatalf("%s: %v", tc.file, err)
			}
			for _, line := range events(flows.Segment(s)) {
				dir := line[:strings.Index(line, ": ")]
				byDir[dir] = append(byDir[dir], line)
			}
		}
		if end := flows.End(); len(end) != 0 {
			t.Errorf("%s: %s", tc.file, events(end))
		}
		var live []string
		for _, s := range TCPStreams(frames, tc.port) {
			live = append(live, byDir[s.From.String()+" > "+s.To.String()]...)
		}
		if want := siwMessages(t, tc.file, tc.port); strings.Join(live, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s live:\n%s\nwhole file:\n%s", tc.file, strings.Join(live, "\n"), strings.Join(want, "\n"))
		}
	}
}

// FuzzIWARPFlows: any segments, in any order, decode or stop with a
// fault, never panic; a stopped direction says why once.
func FuzzIWARPFlows(f *testing.F) {
	f.Add(mpaFrame(mpaReqKey, 2, []byte("hi")), fpdu(tagged(RDMAPWrite, true, 1, 2, []byte("x"))), uint32(1), uint32(30))
	f.Add([]byte("MPA ID Rep Frame"), []byte{0xff, 0xff}, uint32(0), uint32(0))
	f.Fuzz(func(t *testing.T, a, b []byte, seqA, seqB uint32) {
		var fl IWARPFlows
		var evs []IWARPEvent
		for _, s := range []TCPSegment{{From: cliEnd, To: srvEnd, Seq: 0, SYN: true}, seg(seqB, b), seg(seqA, a), seg(seqB, b)} {
			evs = append(evs, fl.Segment(s)...)
		}
		evs = append(evs, fl.End()...)
		faults := 0
		for _, e := range evs {
			_ = e.Msg.Summary()
			if e.Fault != FaultNone {
				faults++
			}
		}
		if faults > 1 {
			t.Fatalf("one direction stopped %d times: %s", faults, events(evs))
		}
	})
}

// TestTCPStreamsReorders: a whole capture is reassembled as a live one
// is: a segment captured before the one the sender sent ahead of it (the
// wire lost that one, the sender sent it again) waits for it, padding is
// no payload, and a hole that never fills is a gap.
func TestTCPStreamsReorders(t *testing.T) {
	syn := ethTCP(TCPSegment{From: cliEnd, To: srvEnd, Seq: 1000}, 0x02)
	a, b := ethTCP(seg(1001, []byte("MPA ")), 0x18), ethTCP(seg(1005, []byte("ID")), 0x18)
	for _, tc := range []struct {
		name   string
		frames [][]byte
		data   string
		gap    bool
	}{
		{"in order", [][]byte{syn, a, b}, "MPA ID", false},
		{"reordered", [][]byte{syn, b, a}, "MPA ID", false},
		{"repeated", [][]byte{syn, a, a, b, b}, "MPA ID", false},
		{"hole", [][]byte{syn, b}, "", true},
	} {
		s := TCPStreams(tc.frames, 7471)
		if len(s) != 1 || string(s[0].Data) != tc.data || s[0].Gap != tc.gap {
			t.Errorf("%s: %+v", tc.name, s)
		}
	}
}

// TestIWARPFlowsBoundWhatHolesHold: directions that each hold less than
// one may behind a hole, but together more than all may, are stopped as
// gaps once the sum is over, and what they held is let go.
func TestIWARPFlowsBoundWhatHolesHold(t *testing.T) {
	var f IWARPFlows
	chunk := make([]byte, maxHeld-1)
	var faults []IWARPEvent
	for i := 0; i < maxHeldAll/len(chunk)+2; i++ {
		from := netip.AddrPortFrom(cliEnd.Addr(), uint16(10000+i))
		f.Segment(TCPSegment{From: from, To: srvEnd, Seq: 0, SYN: true})
		for _, e := range f.Segment(TCPSegment{From: from, To: srvEnd, Seq: 100, Payload: chunk}) {
			if e.Fault == FaultGap {
				faults = append(faults, e)
			}
		}
		if f.held > maxHeldAll {
			t.Fatalf("after %d directions the flows hold %d bytes", i+1, f.held)
		}
	}
	if len(faults) == 0 {
		t.Fatal("no direction was stopped")
	}
	f.End()
	if f.held != 0 {
		t.Errorf("%d bytes still held after the end", f.held)
	}
}
