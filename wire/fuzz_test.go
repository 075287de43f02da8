package wire

import (
	"bytes"
	"testing"
	"time"
)

func FuzzDecodeFrame(f *testing.F) {
	for _, s := range sampleFrames() {
		fr := s.frame()
		b, err := fr.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := DecodeFrame(b)
		if err != nil {
			return
		}
		// What decodes must encode again to a frame that decodes the same.
		again, err := fr.Encode()
		if err != nil {
			return // e.g. a header the opcode does not call for cannot arise; unknown opcodes are refused earlier
		}
		fr2, err := DecodeFrame(again)
		if err != nil || !fr2.ICRCValid {
			t.Fatalf("re-encoded frame does not decode: %v (ICRC valid %v)", err, fr2.ICRCValid)
		}
		if !bytes.Equal(fr2.Packet.Payload, fr.Packet.Payload) || fr2.Packet.BTH.PSN != fr.Packet.BTH.PSN {
			t.Fatalf("re-encoding changed the packet")
		}
	})
}

func FuzzDecodePacket(f *testing.F) {
	for _, s := range sampleFrames() {
		b, err := s.pkt.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePacket(b)
		if err != nil {
			return
		}
		if p.Len() != len(b) {
			t.Fatalf("decoded packet says it is %d bytes, input was %d", p.Len(), len(b))
		}
		_ = p.Summary()
	})
}

func FuzzDecodeCM(f *testing.F) {
	for _, s := range sampleFrames() {
		if s.pkt.DETH != nil && s.pkt.DETH.SrcQP == 1 {
			f.Add(s.pkt.Payload)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMAD(b)
		if err != nil {
			return
		}
		msg, err := DecodeCM(m)
		if err != nil {
			return
		}
		_ = CMSummary(msg)
		if req, ok := msg.(*REQ); ok {
			_ = DecodeIPCM(req.PrivateData)
		}
	})
}

func FuzzReadPcap(f *testing.F) {
	var buf bytes.Buffer
	w, _ := NewPcapWriter(&buf)
	fr := sampleFrames()[3].frame()
	b, _ := fr.Encode()
	_ = w.WriteFrame(time.Unix(0, 0), b)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		frames, _ := ReadPcap(bytes.NewReader(b))
		for _, fb := range frames {
			_, _ = DecodeFrame(fb)
		}
	})
}
