package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/wire"
	"golang.org/x/net/bpf"
)

// mpa is an MPA frame (revision 1: no IRD/ORD header) with priv.
func mpa(key string, priv string) []byte {
	b := append([]byte(key), 0, 1)
	b = binary.BigEndian.AppendUint16(b, uint16(len(priv)))
	return append(b, priv...)
}

// sendFPDU is an FPDU holding an untagged Send on queue 0, last segment.
func sendFPDU(msn uint32, payload string) []byte {
	ddp := []byte{0x41, 0x43, 0, 0, 0, 0}
	ddp = binary.BigEndian.AppendUint32(ddp, 0)
	ddp = binary.BigEndian.AppendUint32(ddp, msn)
	ddp = binary.BigEndian.AppendUint32(ddp, 0)
	ddp = append(ddp, payload...)
	b := binary.BigEndian.AppendUint16(nil, uint16(len(ddp)))
	b = append(b, ddp...)
	b = append(b, make([]byte, (4-len(b)%4)%4)...)
	return append(b, 0, 0, 0, 0)
}

// TestTraceIWARPOnLoopback: a real TCP connection on lo to the traced
// port, carrying an MPA Request and two Sends (written in pieces, so
// FPDUs straddle segments) and the Reply back, comes out of the tracer
// as those messages, each direction in order; a connection on another
// port is not captured, and the pcap holds the TCP frames.
func TestTraceIWARPOnLoopback(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	var pcap bytes.Buffer
	tr, err := TraceIWARP("lo", port, []netip.Addr{netip.MustParseAddr("127.0.0.1")}, &pcap)
	var perm *NoPermissionError
	if errors.As(err, &perm) {
		t.Skipf("no CAP_NET_RAW here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	other, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		if c, err := other.Accept(); err == nil {
			c.Write(mpa("MPA ID Rep Frame", "not ours"))
			c.Close()
		}
	}()
	if c, err := net.Dial("tcp4", other.Addr().String()); err == nil {
		c.Write(mpa("MPA ID Req Frame", "not ours"))
		c.Close()
	}
	stream := append(append(mpa("MPA ID Req Frame", "hello"), sendFPDU(1, "first")...), sendFPDU(2, "second")...)
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			if _, err = io.ReadFull(c, make([]byte, len(stream))); err == nil {
				_, err = c.Write(mpa("MPA ID Rep Frame", "reply"))
			}
			c.Close()
		}
		done <- err
	}()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).SetNoDelay(true)
	for _, cut := range [][2]int{{0, 7}, {7, 30}, {30, len(stream)}} {
		if _, err := c.Write(stream[cut[0]:cut[1]]); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c.Close()
	time.Sleep(100 * time.Millisecond)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tr.Frames(0, nil) {
		if s.IWARP == nil {
			t.Errorf("a frame that is not an iWARP message: %+v", s.Captured)
			continue
		}
		e := s.IWARP
		line := e.Msg.Summary()
		if e.Fault != wire.FaultNone {
			line = "fault: " + e.Err.Error()
		}
		if e.To.Port() == port {
			line = "to server: " + line
		} else if e.From.Port() == port {
			line = "to client: " + line
		} else {
			line = "another port " + strconv.Itoa(int(e.To.Port())) + ": " + line
		}
		got = append(got, line)
	}
	want := []string{
		"to server: MPA Request rev 1, 5 B private data",
		"to server: Send QN 0 MSN 1 MO 0, 5 B, last",
		"to server: Send QN 0 MSN 2 MO 0, 6 B, last",
		"to client: MPA Reply rev 1, 5 B private data",
	}
	// The directions interleave as the segments crossed lo: compare each
	// direction's order.
	for _, dir := range []string{"to server: ", "to client: "} {
		if g, w := only(got, dir), only(want, dir); strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s\ngot  %q\nwant %q\n(all: %q)", dir, g, w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("kept %q, want only %q", got, want)
	}
	frames, err := wire.ReadPcap(&pcap)
	if err != nil || len(frames) < 6 {
		t.Fatalf("pcap holds %d frames (%v)", len(frames), err)
	}
}

func only(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestRoceOrTCPFilter runs the filter on frames: UDP 4791 and TCP from or
// to the port pass, other ports, other protocols and fragments do not.
func TestRoceOrTCPFilter(t *testing.T) {
	raw, err := roceOrTCPFilter(7471)
	if err != nil {
		t.Fatal(err)
	}
	insns, _ := bpf.Disassemble(raw)
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	frame := func(proto byte, frag uint16, src, dst uint16) []byte {
		f := make([]byte, 14+20+20)
		binary.BigEndian.PutUint16(f[12:], 0x0800)
		f[14], f[14+9] = 0x45, proto
		binary.BigEndian.PutUint16(f[14+6:], frag)
		binary.BigEndian.PutUint16(f[34:], src)
		binary.BigEndian.PutUint16(f[36:], dst)
		return f
	}
	for _, tc := range []struct {
		name  string
		frame []byte
		pass  bool
	}{
		{"RoCEv2", frame(17, 0, 50000, 4791), true},
		{"UDP elsewhere", frame(17, 0, 4791, 53), false},
		{"TCP to the port", frame(6, 0x4000, 40762, 7471), true},
		{"TCP from the port", frame(6, 0, 7471, 40762), true},
		{"TCP elsewhere", frame(6, 0, 22, 40762), false},
		{"a TCP fragment", frame(6, 0x2001, 7471, 1), false},
		{"ICMP", frame(1, 0, 7471, 7471), false},
		{"IPv6", func() []byte { f := frame(6, 0, 7471, 1); f[12], f[13] = 0x86, 0xdd; return f }(), false},
	} {
		n, err := vm.Run(tc.frame)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (n > 0) != tc.pass {
			t.Errorf("%s: filter returned %d, want pass=%v", tc.name, n, tc.pass)
		}
	}
}
