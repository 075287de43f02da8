package wire

import (
	"encoding/binary"
	"net/netip"
)

// Service ID Resolution (IBA 12.11): how rdma_cm's UDP port space finds a
// UD service's QP number and Q_Key. Two MADs, a request and a reply; no
// connection follows.

// SIDR attribute IDs and sizes.
const (
	AttrSIDRREQ uint16 = 0x0017
	AttrSIDRREP uint16 = 0x0018
	// SIDRREQPrivateLen and SIDRREPPrivateLen are the messages' private
	// data fields; rdma_cm's 36-byte header takes the start of a request's.
	SIDRREQPrivateLen = 216
	SIDRREPPrivateLen = 136
	// PSUDPServicePrefix is RDMA_PS_UDP's service ID prefix; the low 16
	// bits are the destination port.
	PSUDPServicePrefix = 0x0000000001110000
)

// ServiceIDForUDPPort is the service ID of an RDMA_PS_UDP port.
func ServiceIDForUDPPort(port uint16) uint64 { return PSUDPServicePrefix | uint64(port) }

// SIDRREQ asks which QP serves a service ID.
type SIDRREQ struct {
	RequestID   uint32
	PKey        uint16
	ServiceID   uint64
	PrivateData [SIDRREQPrivateLen]byte
}

func (*SIDRREQ) Attr() uint16 { return AttrSIDRREQ }
func (*SIDRREQ) Name() string { return "SIDR_REQ" }

func (r *SIDRREQ) put(d []byte) {
	be := binary.BigEndian
	be.PutUint32(d[0:], r.RequestID)
	be.PutUint16(d[4:], r.PKey)
	be.PutUint64(d[8:], r.ServiceID)
	copy(d[16:], r.PrivateData[:])
}

func decodeSIDRREQ(d []byte) *SIDRREQ {
	be := binary.BigEndian
	r := &SIDRREQ{RequestID: be.Uint32(d[0:]), PKey: be.Uint16(d[4:]), ServiceID: be.Uint64(d[8:])}
	copy(r.PrivateData[:], d[16:])
	return r
}

// SIDRREQPrivateData builds a SIDR request's private data as rdma_cm
// does: its IP CM header (as in a REQ), then the application's bytes.
func SIDRREQPrivateData(src netip.AddrPort, dst netip.Addr, user []byte) [SIDRREQPrivateLen]byte {
	var d [SIDRREQPrivateLen]byte
	h := REQPrivateData(src, dst, nil)
	copy(d[:ipCMHeaderLen], h[:ipCMHeaderLen])
	copy(d[ipCMHeaderLen:], user)
	return d
}

// SIDRREP answers with the QP number and Q_Key (Status 0: the service
// is there).
type SIDRREP struct {
	RequestID   uint32
	Status      uint8
	QPN         uint32 // 24 bits
	ServiceID   uint64
	QKey        uint32
	PrivateData [SIDRREPPrivateLen]byte
}

func (*SIDRREP) Attr() uint16 { return AttrSIDRREP }
func (*SIDRREP) Name() string { return "SIDR_REP" }

// sidrREPPrivateOffset: after RequestID, Status, AddInfoLength, a
// reserved half word, QPN, ServiceID, Q_Key and 72 bytes of ClassPortInfo.
const sidrREPPrivateOffset = 4 + 1 + 1 + 2 + 4 + 8 + 4 + 72

func (r *SIDRREP) put(d []byte) {
	be := binary.BigEndian
	be.PutUint32(d[0:], r.RequestID)
	d[4] = r.Status
	be.PutUint32(d[8:], r.QPN<<8)
	be.PutUint64(d[12:], r.ServiceID)
	be.PutUint32(d[20:], r.QKey)
	copy(d[sidrREPPrivateOffset:], r.PrivateData[:])
}

func decodeSIDRREP(d []byte) *SIDRREP {
	be := binary.BigEndian
	r := &SIDRREP{RequestID: be.Uint32(d[0:]), Status: d[4], QPN: be.Uint32(d[8:]) >> 8,
		ServiceID: be.Uint64(d[12:]), QKey: be.Uint32(d[20:])}
	copy(r.PrivateData[:], d[sidrREPPrivateOffset:])
	return r
}
