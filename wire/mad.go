package wire

import (
	"encoding/binary"
	"fmt"
)

// MAD sizes and the values rdma_cm's CM MADs carry (IBA 13.4, 16.7).
const (
	MADLen        = 256
	madHeaderLen  = 24
	MADDataLen    = MADLen - madHeaderLen
	MgmtClassCM   = 0x07
	CMClassVer    = 2
	MADMethodSend = 0x03
	// QP1QKey is the well-known Q_Key of the general services QP.
	QP1QKey = 0x80010000
)

// CM attribute IDs: which message a CM MAD carries.
const (
	AttrREQ  uint16 = 0x0010
	AttrMRA  uint16 = 0x0011
	AttrREJ  uint16 = 0x0012
	AttrREP  uint16 = 0x0013
	AttrRTU  uint16 = 0x0014
	AttrDREQ uint16 = 0x0015
	AttrDREP uint16 = 0x0016
)

// MAD is a management datagram: a 24-byte common header and 232 bytes of
// class data. The CM sends them to QP1 in UD SEND_ONLY packets.
type MAD struct {
	BaseVersion       uint8
	MgmtClass         uint8
	ClassVersion      uint8
	Method            uint8
	Status            uint16
	ClassSpecific     uint16
	TransactionID     uint64
	AttributeID       uint16
	AttributeModifier uint32
	Data              [MADDataLen]byte
}

// Marshal encodes the MAD in its 256 bytes.
func (m *MAD) Marshal() []byte {
	b := make([]byte, MADLen)
	b[0], b[1], b[2], b[3] = m.BaseVersion, m.MgmtClass, m.ClassVersion, m.Method
	be := binary.BigEndian
	be.PutUint16(b[4:], m.Status)
	be.PutUint16(b[6:], m.ClassSpecific)
	be.PutUint64(b[8:], m.TransactionID)
	be.PutUint16(b[16:], m.AttributeID)
	be.PutUint32(b[20:], m.AttributeModifier)
	copy(b[madHeaderLen:], m.Data[:])
	return b
}

// DecodeMAD decodes a 256-byte MAD.
func DecodeMAD(b []byte) (MAD, error) {
	if len(b) != MADLen {
		return MAD{}, malformed("a MAD is %d bytes, not %d", MADLen, len(b))
	}
	be := binary.BigEndian
	m := MAD{BaseVersion: b[0], MgmtClass: b[1], ClassVersion: b[2], Method: b[3],
		Status: be.Uint16(b[4:]), ClassSpecific: be.Uint16(b[6:]), TransactionID: be.Uint64(b[8:]),
		AttributeID: be.Uint16(b[16:]), AttributeModifier: be.Uint32(b[20:])}
	copy(m.Data[:], b[madHeaderLen:])
	return m, nil
}

// CMMessage is one of REQ, REP, RTU, REJ, DREQ, DREP.
type CMMessage interface {
	// Attr is the MAD attribute ID of the message.
	Attr() uint16
	// Name is "REQ", "REP", ...
	Name() string
	put(d []byte)
}

// CMMAD wraps a CM message in a MAD with the given transaction ID.
func CMMAD(msg CMMessage, tid uint64) MAD {
	m := MAD{BaseVersion: 1, MgmtClass: MgmtClassCM, ClassVersion: CMClassVer, Method: MADMethodSend,
		TransactionID: tid, AttributeID: msg.Attr()}
	msg.put(m.Data[:])
	return m
}

// CMPacket is the UD packet that carries a CM MAD to the peer's QP1.
// AckReq is set as rxe sets it on every packet of the GSI QP (QP1), MADs
// included, though nothing acknowledges them; on a UD QP's own datagrams
// it is clear (both measured between two guests).
func CMPacket(msg CMMessage, tid uint64, psn uint32) Packet {
	m := CMMAD(msg, tid)
	return Packet{
		BTH:     BTH{Opcode: UDSendOnly, PKey: 0xffff, DestQP: 1, AckReq: true, PSN: psn},
		DETH:    &DETH{QKey: QP1QKey, SrcQP: 1},
		Payload: m.Marshal(),
	}
}

// DecodeCM decodes the CM message in a MAD.
func DecodeCM(m MAD) (CMMessage, error) {
	if m.MgmtClass != MgmtClassCM {
		return nil, malformed("MAD class 0x%02x is not the CM (0x07)", m.MgmtClass)
	}
	d := m.Data[:]
	switch m.AttributeID {
	case AttrREQ:
		return decodeREQ(d), nil
	case AttrREP:
		return decodeREP(d), nil
	case AttrRTU:
		return decodeRTU(d), nil
	case AttrREJ:
		return decodeREJ(d), nil
	case AttrDREQ:
		return decodeDREQ(d), nil
	case AttrDREP:
		return decodeDREP(d), nil
	case AttrSIDRREQ:
		return decodeSIDRREQ(d), nil
	case AttrSIDRREP:
		return decodeSIDRREP(d), nil
	}
	return nil, malformed("CM attribute 0x%04x is not one rdmatour models", m.AttributeID)
}

// CMSummary is a one-line description of a CM MAD in Wireshark's words:
// "CM: ConnectRequest", "CM: ConnectReply", ...
func CMSummary(msg CMMessage) string {
	names := map[uint16]string{AttrREQ: "ConnectRequest", AttrREP: "ConnectReply", AttrRTU: "ReadyToUse",
		AttrREJ: "ConnectReject", AttrDREQ: "DisconnectRequest", AttrDREP: "DisconnectReply",
		AttrSIDRREQ: "ServiceIDResReq", AttrSIDRREP: "ServiceIDResReqResp"}
	if n, ok := names[msg.Attr()]; ok {
		return "CM: " + n
	}
	return fmt.Sprintf("CM: attribute 0x%04x", msg.Attr())
}
