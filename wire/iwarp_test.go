package wire

import (
	"encoding/binary"
	"strings"
	"testing"
)

// fpdu builds one MPA FPDU around a DDP segment (CRC zero, as siw sends
// it without CRC negotiated).
func fpdu(ddp []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(ddp)))
	b = append(b, ddp...)
	b = append(b, make([]byte, pad(len(b)))...)
	return append(b, 0, 0, 0, 0)
}

func tagged(op RDMAPOpcode, last bool, stag uint32, to uint64, payload []byte) []byte {
	b := []byte{0x81, 0x40 | byte(op)} // T, DV 1; RDMAP version 1
	if last {
		b[0] |= 0x40
	}
	b = binary.BigEndian.AppendUint32(b, stag)
	b = binary.BigEndian.AppendUint64(b, to)
	return append(b, payload...)
}

func untagged(op RDMAPOpcode, qn, msn, mo uint32, payload []byte) []byte {
	b := []byte{0x41, 0x40 | byte(op), 0, 0, 0, 0} // L, DV 1; no invalidate STag
	b = binary.BigEndian.AppendUint32(b, qn)
	b = binary.BigEndian.AppendUint32(b, msn)
	b = binary.BigEndian.AppendUint32(b, mo)
	return append(b, payload...)
}

func mpaFrame(key []byte, rev byte, priv []byte) []byte {
	b := append([]byte(nil), key...)
	b = append(b, 0x00, rev)
	if rev == 2 {
		priv = append([]byte{0x80, 0x01, 0x80, 0x01}, priv...) // RFC 6581 IRD/ORD
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(priv)))
	return append(b, priv...)
}

func TestDecodeIWARPStream(t *testing.T) {
	readReq := binary.BigEndian.AppendUint32(nil, 0x1234)    // sink STag
	readReq = binary.BigEndian.AppendUint64(readReq, 0x7f00) // sink TO
	readReq = binary.BigEndian.AppendUint32(readReq, 1024)   // size
	readReq = binary.BigEndian.AppendUint32(readReq, 0x5678) // source STag
	readReq = binary.BigEndian.AppendUint64(readReq, 0x9000) // source TO
	for _, tc := range []struct {
		name   string
		stream []byte
		want   []string
		rest   int
	}{
		{"request with private data", mpaFrame(mpaReqKey, 2, make([]byte, 40)), []string{"MPA Request rev 2, 40 B private data"}, 0},
		{"reply rev 1", mpaFrame(mpaRepKey, 1, make([]byte, 7)), []string{"MPA Reply rev 1, 7 B private data"}, 0},
		{"write then send", append(fpdu(tagged(RDMAPWrite, true, 0x1a2b, 0x55d0_0000_1000, []byte("hello over iWARP"))),
			fpdu(untagged(RDMAPSend, 0, 1, 0, []byte("RDMA_WRITE_DONE\x00")))...),
			[]string{"RDMA Write STag 0x1a2b TO 0x55d000001000, 16 B, last", "Send QN 0 MSN 1 MO 0, 16 B, last"}, 0},
		{"read request and response", append(fpdu(untagged(RDMAPReadRequest, 1, 1, 0, readReq)),
			fpdu(tagged(RDMAPReadResponse, true, 0x1234, 0x7f00, make([]byte, 5)))...),
			[]string{"RDMA Read Request QN 1 MSN 1: 1024 B from STag 0x5678 TO 0x9000 into STag 0x1234 TO 0x7f00", "RDMA Read Response STag 0x1234 TO 0x7f00, 5 B, last"}, 0},
		{"terminate", fpdu(untagged(RDMAPTerminate, 2, 1, 0, make([]byte, 28))), []string{"Terminate QN 2 MSN 1 MO 0, 28 B, last"}, 0},
		{"incomplete FPDU kept", fpdu(untagged(RDMAPSend, 0, 1, 0, nil))[:10], nil, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, rest, err := DecodeIWARPStream(tc.stream)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range msgs {
				got = append(got, m.Summary())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") || len(rest) != tc.rest {
				t.Errorf("got %q (rest %d), want %q (rest %d)", got, len(rest), tc.want, tc.rest)
			}
		})
	}
	if _, _, err := DecodeIWARPStream(mpaFrame(mpaReqKey, 1, make([]byte, 9))[:25]); err == nil {
		t.Error("an MPA frame shorter than its PD_Length decoded")
	}
}

// FuzzDecodeIWARPStream: any byte stream decodes or errs, never panics,
// and what is left over is a suffix of the input.
func FuzzDecodeIWARPStream(f *testing.F) {
	f.Add(mpaFrame(mpaReqKey, 2, make([]byte, 19)))
	f.Add(fpdu(tagged(RDMAPWrite, true, 1, 2, []byte("x"))))
	f.Add(fpdu(untagged(RDMAPReadRequest, 1, 1, 0, make([]byte, 28))))
	f.Fuzz(func(t *testing.T, b []byte) {
		msgs, rest, _ := DecodeIWARPStream(b)
		for _, m := range msgs {
			_ = m.Summary()
		}
		if len(rest) > len(b) || string(b[len(b)-len(rest):]) != string(rest) {
			t.Fatalf("rest %x is not a suffix of %x", rest, b)
		}
	})
}
