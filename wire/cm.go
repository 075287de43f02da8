package wire

import "encoding/binary"

// Private-data sizes of the CM messages (IBA 12.6): what rdma_cm's
// private_data_len is bounded by, less the 36-byte IP CM header in a REQ.
const (
	REQPrivateLen  = 92
	REPPrivateLen  = 196
	RTUPrivateLen  = 224
	REJPrivateLen  = 148
	DREQPrivateLen = 220
	DREPPrivateLen = 224
)

// GID is a 16-byte global identifier; on RoCEv2 an IPv4-mapped IPv6
// address (::ffff:a.b.c.d).
type GID [16]byte

// REQ is the connection request (IBA 12.6.5).
type REQ struct {
	LocalCommID             uint32
	ServiceID               uint64
	LocalCAGUID             uint64
	LocalQKey               uint32
	LocalQPN                uint32 // 24 bits
	ResponderResources      uint8
	InitiatorDepth          uint8
	RemoteCMResponseTimeout uint8 // 5 bits
	TransportServiceType    uint8 // 2 bits: 0 = RC
	EndToEndFlowControl     bool
	StartingPSN             uint32 // 24 bits
	LocalCMResponseTimeout  uint8  // 5 bits
	RetryCount              uint8  // 3 bits
	PKey                    uint16
	PathMTU                 uint8 // 4 bits, IBV_MTU_* numbering
	RNRRetryCount           uint8 // 3 bits
	MaxCMRetries            uint8 // 4 bits
	SRQ                     bool
	PrimaryLocalGID         GID
	PrimaryRemoteGID        GID
	PrimaryFlowLabel        uint32 // 20 bits
	PrimaryPacketRate       uint8  // 6 bits
	PrimaryTrafficClass     uint8
	PrimaryHopLimit         uint8
	PrimarySL               uint8 // 4 bits
	PrimarySubnetLocal      bool
	PrimaryLocalACKTimeout  uint8 // 5 bits
	PrivateData             [REQPrivateLen]byte
}

func (*REQ) Attr() uint16 { return AttrREQ }
func (*REQ) Name() string { return "REQ" }

func (r *REQ) put(d []byte) {
	be := binary.BigEndian
	be.PutUint32(d[0:], r.LocalCommID)
	be.PutUint64(d[8:], r.ServiceID)
	be.PutUint64(d[16:], r.LocalCAGUID)
	be.PutUint32(d[28:], r.LocalQKey)
	be.PutUint32(d[32:], r.LocalQPN<<8|uint32(r.ResponderResources))
	be.PutUint32(d[36:], uint32(r.InitiatorDepth)) // local EECN 0
	d[43] = (r.RemoteCMResponseTimeout&0x1f)<<3 | (r.TransportServiceType&3)<<1 | boolBit(r.EndToEndFlowControl, 0)
	be.PutUint32(d[44:], r.StartingPSN<<8|uint32(r.LocalCMResponseTimeout&0x1f)<<3|uint32(r.RetryCount&7))
	be.PutUint16(d[48:], r.PKey)
	d[50] = (r.PathMTU&0xf)<<4 | r.RNRRetryCount&7
	d[51] = (r.MaxCMRetries&0xf)<<4 | boolBit(r.SRQ, 3)
	// Primary path: local and remote port LIDs are 0xffff ("permissive")
	// on RoCE, then the GIDs.
	be.PutUint16(d[52:], 0xffff)
	be.PutUint16(d[54:], 0xffff)
	copy(d[56:72], r.PrimaryLocalGID[:])
	copy(d[72:88], r.PrimaryRemoteGID[:])
	be.PutUint32(d[88:], r.PrimaryFlowLabel<<12|uint32(r.PrimaryPacketRate&0x3f))
	d[92] = r.PrimaryTrafficClass
	d[93] = r.PrimaryHopLimit
	d[94] = (r.PrimarySL&0xf)<<4 | boolBit(r.PrimarySubnetLocal, 3)
	d[95] = (r.PrimaryLocalACKTimeout & 0x1f) << 3
	copy(d[140:], r.PrivateData[:])
}

func decodeREQ(d []byte) *REQ {
	be := binary.BigEndian
	r := &REQ{
		LocalCommID:             be.Uint32(d[0:]),
		ServiceID:               be.Uint64(d[8:]),
		LocalCAGUID:             be.Uint64(d[16:]),
		LocalQKey:               be.Uint32(d[28:]),
		LocalQPN:                be.Uint32(d[32:]) >> 8,
		ResponderResources:      d[35],
		InitiatorDepth:          d[39],
		RemoteCMResponseTimeout: d[43] >> 3,
		TransportServiceType:    d[43] >> 1 & 3,
		EndToEndFlowControl:     d[43]&1 != 0,
		StartingPSN:             be.Uint32(d[44:]) >> 8,
		LocalCMResponseTimeout:  d[47] >> 3,
		RetryCount:              d[47] & 7,
		PKey:                    be.Uint16(d[48:]),
		PathMTU:                 d[50] >> 4,
		RNRRetryCount:           d[50] & 7,
		MaxCMRetries:            d[51] >> 4,
		SRQ:                     d[51]&8 != 0,
		PrimaryFlowLabel:        be.Uint32(d[88:]) >> 12,
		PrimaryPacketRate:       d[91] & 0x3f,
		PrimaryTrafficClass:     d[92],
		PrimaryHopLimit:         d[93],
		PrimarySL:               d[94] >> 4,
		PrimarySubnetLocal:      d[94]&8 != 0,
		PrimaryLocalACKTimeout:  d[95] >> 3,
	}
	copy(r.PrimaryLocalGID[:], d[56:72])
	copy(r.PrimaryRemoteGID[:], d[72:88])
	copy(r.PrivateData[:], d[140:])
	return r
}

// REP is the connection reply (IBA 12.6.8).
type REP struct {
	LocalCommID         uint32
	RemoteCommID        uint32
	LocalQKey           uint32
	LocalQPN            uint32 // 24 bits
	StartingPSN         uint32 // 24 bits
	ResponderResources  uint8
	InitiatorDepth      uint8
	TargetACKDelay      uint8 // 5 bits
	FailoverAccepted    uint8 // 2 bits
	EndToEndFlowControl bool
	RNRRetryCount       uint8 // 3 bits
	SRQ                 bool
	LocalCAGUID         uint64
	PrivateData         [REPPrivateLen]byte
}

func (*REP) Attr() uint16 { return AttrREP }
func (*REP) Name() string { return "REP" }

func (r *REP) put(d []byte) {
	be := binary.BigEndian
	be.PutUint32(d[0:], r.LocalCommID)
	be.PutUint32(d[4:], r.RemoteCommID)
	be.PutUint32(d[8:], r.LocalQKey)
	be.PutUint32(d[12:], r.LocalQPN<<8)
	be.PutUint32(d[20:], r.StartingPSN<<8)
	d[24] = r.ResponderResources
	d[25] = r.InitiatorDepth
	d[26] = (r.TargetACKDelay&0x1f)<<3 | (r.FailoverAccepted&3)<<1 | boolBit(r.EndToEndFlowControl, 0)
	d[27] = (r.RNRRetryCount&7)<<5 | boolBit(r.SRQ, 4)
	be.PutUint64(d[28:], r.LocalCAGUID)
	copy(d[36:], r.PrivateData[:])
}

func decodeREP(d []byte) *REP {
	be := binary.BigEndian
	r := &REP{
		LocalCommID: be.Uint32(d[0:]), RemoteCommID: be.Uint32(d[4:]), LocalQKey: be.Uint32(d[8:]),
		LocalQPN: be.Uint32(d[12:]) >> 8, StartingPSN: be.Uint32(d[20:]) >> 8,
		ResponderResources: d[24], InitiatorDepth: d[25],
		TargetACKDelay: d[26] >> 3, FailoverAccepted: d[26] >> 1 & 3, EndToEndFlowControl: d[26]&1 != 0,
		RNRRetryCount: d[27] >> 5, SRQ: d[27]&0x10 != 0, LocalCAGUID: be.Uint64(d[28:]),
	}
	copy(r.PrivateData[:], d[36:])
	return r
}

// RTU is "ready to use" (IBA 12.6.9): the initiator's answer to the REP.
type RTU struct {
	LocalCommID, RemoteCommID uint32
	PrivateData               [RTUPrivateLen]byte
}

func (*RTU) Attr() uint16 { return AttrRTU }
func (*RTU) Name() string { return "RTU" }

func (r *RTU) put(d []byte) {
	binary.BigEndian.PutUint32(d[0:], r.LocalCommID)
	binary.BigEndian.PutUint32(d[4:], r.RemoteCommID)
	copy(d[8:], r.PrivateData[:])
}

func decodeRTU(d []byte) *RTU {
	r := &RTU{LocalCommID: binary.BigEndian.Uint32(d[0:]), RemoteCommID: binary.BigEndian.Uint32(d[4:])}
	copy(r.PrivateData[:], d[8:])
	return r
}

// REJ rejects a REQ or REP (IBA 12.6.7).
type REJ struct {
	LocalCommID, RemoteCommID uint32
	MessageRejected           uint8 // 0 REQ, 1 REP, 2 other
	RejectInfoLength          uint8 // 7 bits
	Reason                    uint16
	ARI                       [72]byte
	PrivateData               [REJPrivateLen]byte
}

func (*REJ) Attr() uint16 { return AttrREJ }
func (*REJ) Name() string { return "REJ" }

func (r *REJ) put(d []byte) {
	be := binary.BigEndian
	be.PutUint32(d[0:], r.LocalCommID)
	be.PutUint32(d[4:], r.RemoteCommID)
	d[8] = (r.MessageRejected & 3) << 6
	d[9] = (r.RejectInfoLength & 0x7f) << 1
	be.PutUint16(d[10:], r.Reason)
	copy(d[12:84], r.ARI[:])
	copy(d[84:], r.PrivateData[:])
}

func decodeREJ(d []byte) *REJ {
	be := binary.BigEndian
	r := &REJ{LocalCommID: be.Uint32(d[0:]), RemoteCommID: be.Uint32(d[4:]),
		MessageRejected: d[8] >> 6, RejectInfoLength: d[9] >> 1, Reason: be.Uint16(d[10:])}
	copy(r.ARI[:], d[12:84])
	copy(r.PrivateData[:], d[84:])
	return r
}

// DREQ asks to disconnect (IBA 12.6.10).
type DREQ struct {
	LocalCommID, RemoteCommID uint32
	RemoteQPN                 uint32 // 24 bits
	PrivateData               [DREQPrivateLen]byte
}

func (*DREQ) Attr() uint16 { return AttrDREQ }
func (*DREQ) Name() string { return "DREQ" }

func (r *DREQ) put(d []byte) {
	be := binary.BigEndian
	be.PutUint32(d[0:], r.LocalCommID)
	be.PutUint32(d[4:], r.RemoteCommID)
	be.PutUint32(d[8:], r.RemoteQPN<<8)
	copy(d[12:], r.PrivateData[:])
}

func decodeDREQ(d []byte) *DREQ {
	be := binary.BigEndian
	r := &DREQ{LocalCommID: be.Uint32(d[0:]), RemoteCommID: be.Uint32(d[4:]), RemoteQPN: be.Uint32(d[8:]) >> 8}
	copy(r.PrivateData[:], d[12:])
	return r
}

// DREP answers a DREQ (IBA 12.6.11).
type DREP struct {
	LocalCommID, RemoteCommID uint32
	PrivateData               [DREPPrivateLen]byte
}

func (*DREP) Attr() uint16 { return AttrDREP }
func (*DREP) Name() string { return "DREP" }

func (r *DREP) put(d []byte) {
	binary.BigEndian.PutUint32(d[0:], r.LocalCommID)
	binary.BigEndian.PutUint32(d[4:], r.RemoteCommID)
	copy(d[8:], r.PrivateData[:])
}

func decodeDREP(d []byte) *DREP {
	r := &DREP{LocalCommID: binary.BigEndian.Uint32(d[0:]), RemoteCommID: binary.BigEndian.Uint32(d[4:])}
	copy(r.PrivateData[:], d[8:])
	return r
}
