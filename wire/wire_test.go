package wire

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	for _, s := range sampleFrames() {
		t.Run(s.name, func(t *testing.T) {
			f := s.frame()
			b, err := f.Encode()
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeFrame(b)
			if err != nil {
				t.Fatal(err)
			}
			if !got.ICRCValid {
				t.Errorf("ICRC of our own frame does not verify")
			}
			got.ICRCValid = false
			if !reflect.DeepEqual(got.Packet, f.Packet) {
				t.Errorf("packet changed in the round trip:\n got %+v\nwant %+v", got.Packet, f.Packet)
			}
			if got.Src != f.Src || got.Dst != f.Dst || got.SrcPort != f.SrcPort {
				t.Errorf("addresses changed: %v:%d -> %v", got.Src, got.SrcPort, got.Dst)
			}
		})
	}
}

// kernelICRC is rxe's algorithm written out bit by bit: crc32_le (no
// inversion) seeded with 0xdebb20e3 (the CRC of eight 0xff bytes), then
// inverted. It checks that ICRC, which uses the standard library, does
// the same thing.
func kernelICRC(masked []byte) uint32 {
	crc := uint32(0xdebb20e3)
	for _, c := range masked {
		crc ^= uint32(c)
		for i := 0; i < 8; i++ {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0xedb88320
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func TestICRCMatchesKernelAlgorithm(t *testing.T) {
	for _, s := range sampleFrames() {
		f := s.frame()
		b, err := f.Encode()
		if err != nil {
			t.Fatal(err)
		}
		ipPkt := b[ethLen : ethLen+ipv4Len+udpLen+f.Packet.Len()]
		masked := append([]byte(nil), ipPkt[:len(ipPkt)-ICRCLen]...)
		masked[1], masked[8], masked[10], masked[11] = 0xff, 0xff, 0xff, 0xff
		masked[ipv4Len+6], masked[ipv4Len+7] = 0xff, 0xff
		masked[ipv4Len+udpLen+4] = 0xff
		if got, want := ICRC(ipPkt), kernelICRC(masked); got != want {
			t.Errorf("%s: ICRC 0x%08x, kernel algorithm 0x%08x", s.name, got, want)
		}
	}
}

func TestICRCCoversWhatItShould(t *testing.T) {
	f := sampleFrames()[3].frame() // the WRITE
	b, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	bth := ethLen + ipv4Len + udpLen
	for _, tc := range []struct {
		name    string
		off     int
		changes bool
	}{
		{"TTL is masked", ethLen + 8, false},
		{"TOS is masked", ethLen + 1, false},
		{"UDP checksum is masked", ethLen + ipv4Len + 6, false},
		{"FECN/BECN byte is masked", bth + 4, false},
		{"destination QP is covered", bth + 7, true},
		{"PSN is covered", bth + 11, true},
		{"rkey is covered", bth + BTHLen + 11, true},
		{"payload is covered", bth + BTHLen + RETHLen, true},
		{"destination IP is covered", ethLen + 19, true},
	} {
		c := append([]byte(nil), b...)
		c[tc.off] ^= 0x01
		got, err := DecodeFrame(c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.ICRCValid == tc.changes {
			t.Errorf("%s: flipping byte %d left ICRCValid=%v", tc.name, tc.off, got.ICRCValid)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	write, _ := (&Packet{BTH: BTH{Opcode: RCWriteOnly, DestQP: 1}, RETH: &remote, Payload: msg}).Marshal()
	ack, _ := (&Packet{BTH: BTH{Opcode: RCAcknowledge}, AETH: &AETH{Syndrome: SyndromeACK}}).Marshal()
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"BTH only, no ICRC", write[:BTHLen]},
		{"WRITE cut inside its RETH", write[:BTHLen+8]},
		{"unknown opcode 0x1f", append([]byte{0x1f}, write[1:]...)},
		{"pad count longer than payload", append([]byte{ack[0], 0x30}, ack[2:]...)},
		{"ACK with a payload", append(append(append([]byte(nil), ack[:len(ack)-4]...), 1, 2, 3, 4), ack[len(ack)-4:]...)},
	} {
		if _, err := DecodePacket(tc.b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", tc.name, err)
		}
	}
}

func TestMarshalRejectsWrongHeaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Packet
	}{
		{"WRITE without RETH", Packet{BTH: BTH{Opcode: RCWriteOnly}}},
		{"ACK without AETH", Packet{BTH: BTH{Opcode: RCAcknowledge}}},
		{"SEND with a RETH", Packet{BTH: BTH{Opcode: RCSendOnly}, RETH: &remote}},
		{"ACK with payload", Packet{BTH: BTH{Opcode: RCAcknowledge}, AETH: &AETH{}, Payload: []byte{1}}},
		{"unknown opcode", Packet{BTH: BTH{Opcode: 0x1f}}},
	} {
		if _, err := tc.p.Marshal(); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", tc.name, err)
		}
	}
}

func TestCMRoundTrip(t *testing.T) {
	for _, s := range sampleFrames() {
		if s.pkt.DETH == nil || s.pkt.DETH.SrcQP != 1 {
			continue
		}
		m, err := DecodeMAD(s.pkt.Payload)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := DecodeCM(m)
		if err != nil {
			t.Fatal(err)
		}
		if msg.Name() != s.name {
			t.Errorf("decoded %s as %s", s.name, msg.Name())
		}
		again := CMMAD(msg, m.TransactionID)
		if !bytes.Equal(again.Marshal(), s.pkt.Payload) {
			t.Errorf("%s: re-encoding the decoded message changes it", s.name)
		}
	}
}

func TestIPCMHeader(t *testing.T) {
	req := sampleFrames()[0].pkt
	m, _ := DecodeMAD(req.Payload)
	msg, _ := DecodeCM(m)
	h := DecodeIPCM(msg.(*REQ).PrivateData)
	if h.IPVersion != 4 || h.Src != hostB || h.Dst != hostA || h.SrcPort != 40012 || len(h.User) != MaxConnectPrivateData {
		t.Errorf("IP CM header = %+v", h)
	}
}
