package sim

import (
	"bytes"
	"io"
	"net"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// Every decoder of peer input has a fuzz target; each must never panic,
// and what decodes must re-encode to the same bytes.

func FuzzDecodePreamble(f *testing.F) {
	f.Add(preamble())
	f.Add([]byte("rdtsim\x00\x02"))
	f.Add([]byte("GET / HT"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if decodePreamble(b) == nil && !bytes.Equal(b, preamble()) {
			t.Fatalf("accepted %q", b)
		}
	})
}

func FuzzReadFrame(f *testing.F) {
	f.Add(encodeCM(&cmMsg{Type: cmREQ, PrivateData: []byte("hi")}))
	f.Add(appendPacketHeader(nil, &packet{Opcode: verbs.OpAcknowledge}, 0))
	f.Add([]byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{2, 0, 0, 0, 0, 0, 0, 3, 1, 2})
	f.Add(seedRuns()[0])
	buf := make([]byte, maxFrameBody)
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		for {
			kind, body, err := readFrame(r, buf)
			if err != nil {
				if err == io.EOF && r.Len() != 0 {
					t.Fatal("EOF with bytes left")
				}
				return
			}
			// A run frame is a frame too; what reads one decides what
			// it may hold (readRun, and the handshake wants CM only).
			if kind != kindCM && kind != kindPacket && kind != kindDatagram && kind != kindImpaired && kind != kindRun || len(body) > maxFrameBody {
				t.Fatalf("kind %d len %d", kind, len(body))
			}
		}
	})
}

func FuzzDecodeCM(f *testing.F) {
	for _, m := range []cmMsg{
		{Type: cmREQ, QPN: 0x123456, PSN: 0xabcdef, ResponderResources: 1, InitiatorDepth: 1, RNRRetryCount: 7, PrivateData: make([]byte, 56)},
		{Type: cmREP, PrivateData: make([]byte, 196)},
		{Type: cmREJ, Reason: 28, PrivateData: []byte("no")},
		{Type: cmRTU}, {Type: cmDREQ}, {Type: cmDREP},
	} {
		f.Add(encodeCM(&m)[frameHeaderLen:])
	}
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeCM(b)
		if err != nil {
			return
		}
		if len(m.PrivateData) > maxPrivateData(m.Type) {
			t.Fatalf("private data %d in type %d", len(m.PrivateData), m.Type)
		}
		if again := encodeCM(&m)[frameHeaderLen:]; !bytes.Equal(again, b) {
			t.Fatalf("round trip %x != %x", again, b)
		}
	})
}

func seedPackets() [][]byte {
	pl := bytes.Repeat([]byte{0xab}, activeMTU)
	var out [][]byte
	for _, p := range []packet{
		{Opcode: verbs.OpSendOnly, AckReq: true, DestQP: 0x11, PSN: 0, Payload: []byte("RDMA_WRITE_DONE")},
		{Opcode: verbs.OpSendFirst, PSN: 0, Payload: pl},
		{Opcode: verbs.OpSendLastWithImm, PSN: 1, HasImm: true, Imm: 5, Payload: []byte("x")},
		{Opcode: verbs.OpRDMAWriteOnly, AckReq: true, HasRETH: true, RETH: verbs.RETH{VA: 0x7f0000001000, RKey: 0x1ff, DMALen: 4}, Payload: []byte("abcd")},
		{Opcode: verbs.OpRDMAWriteFirst, HasRETH: true, RETH: verbs.RETH{VA: 0x7f0000001000, RKey: 0x1ff, DMALen: 5000}, Payload: pl},
		{Opcode: verbs.OpRDMAWriteLastWithImm, PSN: 1, HasImm: true, Imm: 1, Payload: pl[:904]},
		{Opcode: verbs.OpRDMAWriteOnlyWithImm, HasRETH: true, HasImm: true},
		{Opcode: verbs.OpRDMAReadRequest, HasRETH: true, RETH: verbs.RETH{VA: 1 << 40, RKey: 0x100, DMALen: 1 << 31}},
		{Opcode: verbs.OpRDMAReadRespOnly, HasAETH: true, Payload: []byte("zz")},
		{Opcode: verbs.OpAcknowledge, PSN: 0xffffff, HasAETH: true, AETH: verbs.AETH{Syndrome: 0x2c, MSN: 3}},
		{Opcode: verbs.OpAcknowledge, HasAETH: true, AETH: verbs.AETH{Syndrome: verbs.SyndromeNAKRemAccess}},
	} {
		b := appendPacketHeader(nil, &p, len(p.Payload))
		out = append(out, append(b, p.Payload...)[frameHeaderLen:])
	}
	return out
}

func FuzzDecodePacket(f *testing.F) {
	for _, s := range seedPackets() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodePacket(b)
		if err != nil {
			return
		}
		if len(p.Payload) > maxMTU {
			t.Fatal("payload above MTU")
		}
		again := append(appendPacketHeader(nil, &p, len(p.Payload)), p.Payload...)[frameHeaderLen:]
		if !bytes.Equal(again, b) {
			t.Fatalf("round trip %x != %x", again, b)
		}
	})
}

// FuzzResponder drives a QP in RTS with arbitrary packet sequences (PSNs
// mostly forced to the expected one so the fuzzer gets deep) and checks
// that nothing panics and no byte outside the one remotely writable MR
// changes.
func FuzzResponder(f *testing.F) {
	seeds := seedPackets()
	f.Add(bytes.Join(seeds[:3], []byte{0xfe, 0xed}), true)
	f.Add(bytes.Join(seeds[3:], []byte{0xfe, 0xed}), true)
	f.Add(seeds[4], false)
	f.Fuzz(func(t *testing.T, stream []byte, forcePSN bool) {
		p := New(Options{})
		d := p.dev
		pdv, _ := d.AllocPD()
		target, _ := pdv.RegMR(5000, verbs.AccessLocalWrite|verbs.AccessRemoteWrite|verbs.AccessRemoteRead)
		guard, _ := pdv.RegMR(4096, verbs.AccessLocalWrite)
		recvBuf, _ := pdv.RegMR(64, verbs.AccessLocalWrite)
		cqv, _ := d.CreateCQ(64)
		q, err := newQP(d, pdv.(*pd), verbs.QPInitAttr{SendCQ: cqv, RecvCQ: cqv, Type: verbs.QPTRC,
			Cap: verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}}, "rdma_create_qp", false)
		if err != nil {
			t.Fatal(err)
		}
		a, b := net.Pipe()
		go io.Copy(io.Discard, b)
		c := newConn(p, a, connIn{})
		q.toRTR(c, 0x22, 0, 1, 1)
		q.toRTS(7, 7, 1)
		q.PostRecv(verbs.RecvWR{WRID: 1, SGList: sge(recvBuf, 0, 64)})
		q.PostRecv(verbs.RecvWR{WRID: 2, SGList: []verbs.SGE{{Addr: guard.Addr(), Length: 8, LKey: 0x12345}}})
		for _, body := range bytes.Split(stream, []byte{0xfe, 0xed}) {
			pk, err := decodePacket(body)
			if err != nil {
				continue
			}
			// Aim some packets at the real MR.
			if pk.HasRETH && pk.RETH.RKey&0xff == 0xff {
				pk.RETH.RKey = target.RKey()
				pk.RETH.VA = target.Addr() + pk.RETH.VA%6000
			}
			if forcePSN {
				q.mu.Lock()
				pk.PSN = q.rqPSN
				q.mu.Unlock()
			}
			pk.DestQP = q.num
			q.receive(c, &pk)
		}
		g, _ := guard.Read(0, 4096)
		if !bytes.Equal(g, make([]byte, 4096)) {
			t.Fatal("a peer wrote into an MR without remote access")
		}
		c.abort()
		b.Close()
		q.destroy()
	})
}
