package wire

import (
	"net"
	"net/netip"
)

// The tour's packets as two RoCEv2 hosts exchange them, for tests.
var (
	macA   = net.HardwareAddr{0x52, 0x54, 0x00, 0x00, 0x03, 0x01}
	macB   = net.HardwareAddr{0x52, 0x54, 0x00, 0x00, 0x03, 0x02}
	hostA  = netip.MustParseAddr("10.0.3.1")
	hostB  = netip.MustParseAddr("10.0.3.2")
	imm    = uint32(0x1234abcd)
	msg    = []byte("hello from rdmatour client via RDMA WRITE\x00")
	remote = RETH{VA: 0x7f5a08009000, RKey: 0x6d0, DMALen: uint32(len(msg))}
)

// sampleFrame is one frame of the sample exchange: from B (client) to A
// (server) unless toB.
type sampleFrame struct {
	name string
	toB  bool
	pkt  Packet
}

func cm(msg CMMessage, tid uint64) Packet { return CMPacket(msg, tid, 0) }

func sampleFrames() []sampleFrame {
	req := &REQ{LocalCommID: 0x1111, ServiceID: ServiceIDForPort(7471), LocalCAGUID: 0x5054fffe000302,
		LocalQPN: 0x11, ResponderResources: 1, InitiatorDepth: 1, RemoteCMResponseTimeout: 20,
		StartingPSN: 0x1234, LocalCMResponseTimeout: 20, RetryCount: 7, PKey: 0xffff, PathMTU: 3,
		RNRRetryCount: 7, MaxCMRetries: 15, PrimaryLocalGID: GIDFromAddr(hostB), PrimaryRemoteGID: GIDFromAddr(hostA),
		PrimaryHopLimit: 64, PrimaryPacketRate: 2, PrimaryLocalACKTimeout: 14,
		PrivateData: REQPrivateData(netip.AddrPortFrom(hostB, 40012), hostA, nil)}
	rep := &REP{LocalCommID: 0x2222, RemoteCommID: 0x1111, LocalQPN: 0x12, StartingPSN: 0x5678,
		ResponderResources: 1, InitiatorDepth: 1, TargetACKDelay: 15, RNRRetryCount: 7, LocalCAGUID: 0x5054fffe000301}
	copy(rep.PrivateData[:], []byte{0, 0, 0x7f, 0x5a, 0x08, 0x00, 0x90, 0x00, 0, 0, 0x06, 0xd0})
	return []sampleFrame{
		{"REQ", false, cm(req, 1)},
		{"REP", true, cm(rep, 1)},
		{"RTU", false, cm(&RTU{LocalCommID: 0x1111, RemoteCommID: 0x2222}, 2)},
		{"WRITE", false, Packet{BTH: BTH{Opcode: RCWriteOnly, PKey: 0xffff, DestQP: 0x12, AckReq: true, PSN: 0x1234},
			RETH: &remote, Payload: msg}},
		{"ACK", true, Packet{BTH: BTH{Opcode: RCAcknowledge, PKey: 0xffff, DestQP: 0x11, PSN: 0x1234},
			AETH: &AETH{Syndrome: SyndromeACK, MSN: 1}}},
		{"WRITE_IMM", false, Packet{BTH: BTH{Opcode: RCWriteOnlyWithImm, PKey: 0xffff, DestQP: 0x12, AckReq: true, PSN: 0x1235},
			RETH: &remote, ImmDt: &imm, Payload: msg}},
		{"RNR_NAK", true, Packet{BTH: BTH{Opcode: RCAcknowledge, PKey: 0xffff, DestQP: 0x11, PSN: 0x1235},
			AETH: &AETH{Syndrome: SyndromeRNRNAK | 12, MSN: 1}}},
		{"NAK", true, Packet{BTH: BTH{Opcode: RCAcknowledge, PKey: 0xffff, DestQP: 0x11, PSN: 0x1235},
			AETH: &AETH{Syndrome: SyndromeNAKRemAccess, MSN: 1}}},
		{"SEND", false, Packet{BTH: BTH{Opcode: RCSendOnly, SolicitedEvent: true, PKey: 0xffff, DestQP: 0x12, AckReq: true, PSN: 0x1236},
			Payload: []byte("RDMA_WRITE_DONE\x00")}},
		{"READ_REQ", false, Packet{BTH: BTH{Opcode: RCReadRequest, PKey: 0xffff, DestQP: 0x12, AckReq: true, PSN: 0x1237},
			RETH: &remote}},
		{"READ_RESP", true, Packet{BTH: BTH{Opcode: RCReadResponseOnly, PKey: 0xffff, DestQP: 0x11, PSN: 0x1237},
			AETH: &AETH{Syndrome: SyndromeACK, MSN: 2}, Payload: msg}},
		{"FETCH_ADD", false, Packet{BTH: BTH{Opcode: RCFetchAdd, PKey: 0xffff, DestQP: 0x12, AckReq: true, PSN: 0x1238},
			AtomicETH: &AtomicETH{VA: 0x7f5a0800a000, RKey: 0x6d1, SwapAdd: 1}}},
		{"ATOMIC_ACK", true, Packet{BTH: BTH{Opcode: RCAtomicAcknowledge, PKey: 0xffff, DestQP: 0x11, PSN: 0x1238},
			AETH: &AETH{Syndrome: SyndromeACK, MSN: 3}, AtomicAckETH: &AtomicAckETH{OrigData: 41}}},
		{"UD_SEND_IMM", false, Packet{BTH: BTH{Opcode: UDSendOnlyWithImm, PKey: 0xffff, DestQP: 0x13, PSN: 7},
			DETH: &DETH{QKey: 0x11111111, SrcQP: 0x14}, ImmDt: &imm, Payload: []byte("datagram")}},
		{"DREQ", true, cm(&DREQ{LocalCommID: 0x2222, RemoteCommID: 0x1111, RemoteQPN: 0x11}, 3)},
		{"DREP", false, cm(&DREP{LocalCommID: 0x1111, RemoteCommID: 0x2222}, 3)},
	}
}

func (s sampleFrame) frame() Frame {
	f := Frame{SrcMAC: macB, DstMAC: macA, Src: hostB, Dst: hostA, SrcPort: 0xc011, Packet: s.pkt}
	if s.toB {
		f.SrcMAC, f.DstMAC, f.Src, f.Dst, f.SrcPort = macA, macB, hostA, hostB, 0xc012
	}
	return f
}
