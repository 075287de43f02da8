package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

// C text for work requests and completions.

func sendCall(wr verbs.SendWR) string {
	c := fmt.Sprintf("ibv_post_send(qp, {wr_id=%d, opcode=%s, send_flags=%s, sg_list={addr=0x%x, length=%d, lkey=0x%x}",
		wr.WRID, wr.Opcode, wr.Flags, wr.SGList[0].Addr, wr.SGList[0].Length, wr.SGList[0].LKey)
	if wr.Opcode != verbs.WRSend {
		c += fmt.Sprintf(", wr.rdma={remote_addr=0x%x, rkey=0x%x}", wr.RemoteAddr, wr.RKey)
	}
	if wr.Opcode == verbs.WRRDMAWriteWithImm || wr.Opcode == verbs.WRSendWithImm {
		c += fmt.Sprintf(", imm_data=htonl(0x%x)", wr.ImmData)
	}
	return c + "}, &bad)"
}

// opcodeText is the completion's opcode, which is defined only on success.
func opcodeText(wc verbs.WC) string {
	if wc.Status != verbs.WCSuccess {
		return "(undefined: the completion failed)"
	}
	return wc.Opcode.String()
}

// wcText prints a completion as C would show it. For a failed completion
// only wr_id, status, qp_num and vendor_err are defined (ibv_poll_cq(3));
// rxe, for one, leaves garbage in opcode, so it is not printed.
func wcText(wc verbs.WC) string {
	if wc.Status != verbs.WCSuccess {
		return fmt.Sprintf("wc{wr_id=%d, status=%s, qp_num=0x%x, vendor_err=0x%x /* opcode, byte_len: undefined on error */}", wc.WRID, wc.Status.CName(), wc.QPNum, wc.VendorErr)
	}
	t := fmt.Sprintf("wc{wr_id=%d, status=%s, opcode=%s, byte_len=%d, qp_num=0x%x", wc.WRID, wc.Status.CName(), wc.Opcode, wc.ByteLen, wc.QPNum)
	if wc.HasImm {
		t += fmt.Sprintf(", imm_data=0x%x", wc.ImmData)
	}
	return t + "}"
}
