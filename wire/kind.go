package wire

// Kind names a packet the way a learner compares sequences: the opcode,
// the CM message for MADs, and the AETH's kind for acknowledgements —
// no QP numbers, PSNs or addresses. "CM REQ", "RC RDMA_WRITE_ONLY",
// "RC ACKNOWLEDGE NAK", ...
func Kind(p Packet) string {
	if p.DETH != nil && p.DETH.SrcQP == 1 && p.BTH.DestQP == 1 {
		if m, err := DecodeMAD(p.Payload); err == nil {
			if msg, err := DecodeCM(m); err == nil {
				return "CM " + msg.Name()
			}
		}
		return "MAD"
	}
	k := p.BTH.Opcode.String()
	if p.AETH != nil && p.BTH.Opcode == RCAcknowledge {
		k += " " + p.AETH.Syndrome.Kind()
	}
	return k
}
