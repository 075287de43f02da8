package sim

import (
	"bytes"
	"hash/fnv"
	"io"
	"math/bits"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

// The wire tap: with Options.Pcap set, every packet and CM message a
// connection sends or receives is also written as the RoCEv2 frame a real
// NIC would have put on Ethernet — IPv4 / UDP 4791 / BTH and its extension
// headers / payload / ICRC, and the CM exchange as the MADs the kernel's
// IB CM sends to QP1 — so Wireshark opens the simulated NIC's traffic as
// it opens a capture from Soft-RoCE. The addresses are the TCP
// connection's, which are the ones the learner typed.

// pcapSink is the one pcap file of a provider, shared by its connections.
type pcapSink struct {
	mu  sync.Mutex
	w   *wire.PcapWriter
	err error
	// ends are the local TCP endpoints of this provider's connections. In
	// the one-terminal demo both ends of a connection live here: a frame
	// one end receives was written when the other sent it.
	ends map[netip.AddrPort]bool
}

// newPcapSink writes the pcap header to w; a sink whose header failed
// writes nothing and reports the error.
func newPcapSink(w io.Writer) *pcapSink {
	if w == nil {
		return nil
	}
	pw, err := wire.NewPcapWriter(w)
	return &pcapSink{w: pw, err: err, ends: map[netip.AddrPort]bool{}}
}

// PcapErr is the first error writing Options.Pcap, if any.
func (p *Provider) PcapErr() error {
	if p.pcap == nil {
		return nil
	}
	p.pcap.mu.Lock()
	defer p.pcap.mu.Unlock()
	return p.pcap.err
}

func (s *pcapSink) write(f *wire.Frame, inboundFrom netip.AddrPort) {
	b, err := f.Encode()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.ends[inboundFrom] {
		return
	}
	if err == nil {
		err = s.w.WriteFrame(time.Now(), b)
	}
	s.err = err
}

// tap turns one connection's traffic into frames.
type tap struct {
	sink          *pcapSink
	local, remote netip.AddrPort

	mu                sync.Mutex
	localQPN, peerQPN uint32
	// madPSN is QP1's next PSN for the MADs each end sends, [0] this
	// one's, [1] the peer's: rxe counts them per sending host, from 0.
	madPSN [2]uint32
	ipID   uint16
}

func newTap(sink *pcapSink, nc net.Conn) *tap {
	if sink == nil {
		return nil
	}
	t := &tap{sink: sink, local: addrPortOf(nc.LocalAddr()), remote: addrPortOf(nc.RemoteAddr())}
	sink.mu.Lock()
	sink.ends[t.local] = true
	sink.mu.Unlock()
	return t
}

// from is the peer's endpoint for a frame we received, or the zero
// endpoint for one we sent.
func (t *tap) from(outbound bool) netip.AddrPort {
	if outbound {
		return netip.AddrPort{}
	}
	return t.remote
}

// frame addresses a packet: outbound from local to remote, else back.
func (t *tap) frame(p wire.Packet, outbound bool, srcQPN uint32) *wire.Frame {
	src, dst := t.local.Addr(), t.remote.Addr()
	if !outbound {
		src, dst = dst, src
	}
	t.ipID++
	return &wire.Frame{SrcMAC: macOf(src, outbound), DstMAC: macOf(dst, !outbound),
		Src: ipv4Of(src), Dst: ipv4Of(dst), SrcPort: udpSourcePort(srcQPN), TTL: 64, IPID: t.ipID, Packet: p}
}

// ipv4Of keeps frames IPv4 (RoCEv2 over IPv4, as the tour's addresses are).
func ipv4Of(a netip.Addr) netip.Addr {
	if a = a.Unmap(); a.Is4() {
		return a
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}

// macOf makes a locally administered MAC from an address; the two ends
// of a loopback connection differ in one bit so Wireshark can tell them
// apart.
func macOf(a netip.Addr, local bool) net.HardwareAddr {
	b := ipv4Of(a).As4()
	m := net.HardwareAddr{0x02, 0x00, b[0], b[1], b[2], b[3]}
	if !local {
		m[1] = 0x01
	}
	return m
}

// udpSourcePort is rxe's choice: 0xC000 plus a 14-bit hash of the QPN
// (rxe_qp.c: RXE_ROCE_V2_SPORT + hash_32(qpn, 14)).
func udpSourcePort(qpn uint32) uint16 {
	const goldenRatio32 = 0x61C88647
	return uint16(0xC000 + (qpn*goldenRatio32)>>(32-14))
}

// packet writes one transport packet; payload is its bytes on the wire.
func (t *tap) packet(pk *packet, payload []byte, outbound bool) {
	if t == nil {
		return
	}
	p := wire.Packet{BTH: wire.BTH{Opcode: wire.Opcode(pk.Opcode), PKey: 0xffff, DestQP: pk.DestQP,
		AckReq: pk.AckReq, PSN: pk.PSN}, Payload: append([]byte(nil), payload...)}
	if pk.HasRETH {
		p.RETH = &wire.RETH{VA: pk.RETH.VA, RKey: pk.RETH.RKey, DMALen: pk.RETH.DMALen}
	}
	if pk.HasAETH {
		p.AETH = &wire.AETH{Syndrome: wire.Syndrome(pk.AETH.Syndrome), MSN: pk.AETH.MSN}
	}
	if pk.HasImm {
		v := pk.Imm
		p.ImmDt = &v
	}
	if pk.HasAtomicETH {
		a := pk.AtomicETH
		p.AtomicETH = &wire.AtomicETH{VA: a.VA, RKey: a.RKey, SwapAdd: a.SwapAdd, Compare: a.Compare}
	}
	if pk.HasAtomicAck {
		p.AtomicAckETH = &wire.AtomicAckETH{OrigData: pk.AtomicAck}
	}
	t.mu.Lock()
	src := t.peerQPN // a packet to the peer's QP comes from ours, and back
	if outbound {
		src = t.localQPN
	}
	if pk.DestQP == t.localQPN {
		src = t.peerQPN
	} else if pk.DestQP == t.peerQPN {
		src = t.localQPN
	}
	f := t.frame(p, outbound, src)
	t.mu.Unlock()
	t.sink.write(f, t.from(outbound))
}

// raw writes what a raw queue item holds: a CM message, possibly after
// the preamble. Anything else (the preamble alone) has no wire form.
func (t *tap) raw(b []byte) {
	if t == nil {
		return
	}
	b = bytes.TrimPrefix(b, preamble())
	if len(b) < frameHeaderLen {
		return
	}
	kind, n, err := decodeFrameHeader(b[:frameHeaderLen])
	if err != nil || kind != kindCM || len(b) < frameHeaderLen+n {
		return
	}
	if m, err := decodeCM(b[frameHeaderLen : frameHeaderLen+n]); err == nil {
		t.cm(&m, true)
	}
}

// cm writes one CM message as the MAD the IB CM would send.
func (t *tap) cm(m *cmMsg, outbound bool) {
	if t == nil {
		return
	}
	t.mu.Lock()
	switch m.Type {
	case cmREQ, cmREP, cmSIDRReq, cmSIDRRep:
		if outbound {
			t.localQPN = m.QPN
		} else {
			t.peerQPN = m.QPN
		}
	}
	msg := t.cmMessage(m, outbound)
	if msg == nil {
		t.mu.Unlock()
		return
	}
	end := 1
	if outbound {
		end = 0
	}
	psn := t.madPSN[end] & 0xffffff
	t.madPSN[end]++
	f := t.frame(wire.CMPacket(msg, cmTID(msg), psn), outbound, 1)
	t.mu.Unlock()
	t.sink.write(f, t.from(outbound))
}

// cmHiTID is the high half of the IB CM's transaction IDs, the CM MAD
// agent's hi_tid: 2 on both freshly booted guests (measured).
const cmHiTID = 2

// cmTID is the transaction ID the kernel's CM gives msg (cm_form_tid):
// hi_tid above the requester's communication ID as the host reads its
// big-endian bytes, little-endian; a reply echoes its request's.
// REQ, REP and RTU share the active side's ID, DREQ and DREP the
// disconnecting side's, SIDR_REQ and SIDR_REP the request ID.
func cmTID(msg wire.CMMessage) uint64 {
	var id uint32
	switch r := msg.(type) {
	case *wire.REQ:
		id = r.LocalCommID
	case *wire.REP:
		id = r.RemoteCommID
	case *wire.RTU:
		id = r.LocalCommID
	case *wire.REJ:
		id = r.RemoteCommID // the sim's REJs answer a REQ
	case *wire.DREQ:
		id = r.LocalCommID
	case *wire.DREP:
		id = r.RemoteCommID
	case *wire.SIDRREQ:
		id = r.RequestID
	case *wire.SIDRREP:
		id = r.RequestID
	}
	return cmHiTID<<32 | uint64(bits.ReverseBytes32(id))
}

// commID stands in for the IB CM's communication ID: derived from the QP
// number, so both ends name each connection the same way.
func commID(qpn uint32) uint32 {
	h := fnv.New32a()
	h.Write([]byte{byte(qpn >> 16), byte(qpn >> 8), byte(qpn)})
	return h.Sum32()
}

// cmMessage is m as an IB CM message. Called with t.mu held.
func (t *tap) cmMessage(m *cmMsg, outbound bool) wire.CMMessage {
	from, to := t.peerQPN, t.localQPN
	src, dst := t.remote, t.local
	if outbound {
		from, to = to, from
		src, dst = dst, src
	}
	switch m.Type {
	case cmREQ:
		r := &wire.REQ{LocalCommID: commID(from), ServiceID: wire.ServiceIDForPort(dst.Port()),
			LocalQPN: m.QPN, ResponderResources: m.ResponderResources, InitiatorDepth: m.InitiatorDepth,
			RemoteCMResponseTimeout: 20, StartingPSN: m.PSN, LocalCMResponseTimeout: 20,
			RetryCount: m.RetryCount, PKey: 0xffff, PathMTU: uint8(verbs.MTUEnum(activeMTU)), RNRRetryCount: m.RNRRetryCount,
			MaxCMRetries: 15, EndToEndFlowControl: m.FlowControl != 0,
			PrimaryLocalGID: wire.GIDFromAddr(ipv4Of(src.Addr())), PrimaryRemoteGID: wire.GIDFromAddr(ipv4Of(dst.Addr())),
			PrimaryHopLimit: 64, PrimaryLocalACKTimeout: rxeACKTimeout, // as rdma_cm on rxe sends it (wire/testdata)
			PrivateData: wire.REQPrivateData(netip.AddrPortFrom(ipv4Of(src.Addr()), src.Port()), ipv4Of(dst.Addr()), m.PrivateData)}
		return r
	case cmREP:
		r := &wire.REP{LocalCommID: commID(from), RemoteCommID: commID(to), LocalQPN: m.QPN, StartingPSN: m.PSN,
			ResponderResources: m.ResponderResources, InitiatorDepth: m.InitiatorDepth, TargetACKDelay: 15,
			EndToEndFlowControl: m.FlowControl != 0, RNRRetryCount: m.RNRRetryCount}
		copy(r.PrivateData[:], m.PrivateData)
		return r
	case cmRTU:
		return &wire.RTU{LocalCommID: commID(from), RemoteCommID: commID(to)}
	case cmREJ:
		r := &wire.REJ{LocalCommID: commID(from), RemoteCommID: commID(to), Reason: m.Reason}
		copy(r.PrivateData[:], m.PrivateData)
		return r
	case cmDREQ:
		return &wire.DREQ{LocalCommID: commID(from), RemoteCommID: commID(to), RemoteQPN: to}
	case cmDREP:
		return &wire.DREP{LocalCommID: commID(from), RemoteCommID: commID(to)}
	case cmSIDRReq, cmSIDRRep:
		return sidrMessage(m, src, dst, to)
	}
	return nil
}
