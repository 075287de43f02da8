package rdmacore

import (
	"encoding/binary"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

// iwarpPacketOf is an iWARP message the capture decoded (wire's
// IWARPFlows, over the TCP segments of the rdma_cm port) as the wire pane
// shows packets: no BTH, the MPA and DDP/RDMAP fields in IWARP.
func iwarpPacketOf(e wire.IWARPEvent) verbs.IWARP {
	if e.Fault != wire.FaultNone {
		detail := ""
		if e.Err != nil {
			detail = e.Err.Error()
		}
		return verbs.IWARP{From: e.From, To: e.To, Fault: faultOf(e.Fault), FaultDetail: detail}
	}
	m := e.Msg
	v := verbs.IWARP{From: e.From, To: e.To, Rev: m.Rev, Reject: m.Reject, PrivateLen: len(m.PrivateData),
		Tagged: m.Tagged, Last: m.Last, Opcode: uint8(m.Opcode), STag: m.STag, TO: m.TO, QN: m.QN, MSN: m.MSN, MO: m.MO}
	switch m.MPA {
	case "Request":
		v.MPA = verbs.MPARequest
	case "Reply":
		v.MPA = verbs.MPAReply
	}
	if m.MPA == "" && !m.Tagged && m.Opcode == wire.RDMAPReadRequest && len(m.Payload) >= 28 {
		p := m.Payload // RFC 5040 4.4: sink STag, sink TO, size, source STag, source TO
		v.Read = &verbs.IWARPRead{SinkSTag: binary.BigEndian.Uint32(p[0:]), SinkTO: binary.BigEndian.Uint64(p[4:]),
			Size: binary.BigEndian.Uint32(p[12:]), SrcSTag: binary.BigEndian.Uint32(p[16:]), SrcTO: binary.BigEndian.Uint64(p[20:])}
	}
	return v
}

func faultOf(f wire.IWARPFault) verbs.IWARPFault {
	switch f {
	case wire.FaultGap:
		return verbs.IWARPGap
	case wire.FaultNotMPA:
		return verbs.IWARPNotMPA
	case wire.FaultTruncated:
		return verbs.IWARPTruncated
	}
	return verbs.IWARPMalformed
}
