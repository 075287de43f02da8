package pcapview

import (
	"fmt"
	"io"
	"strings"

	"github.com/gopacket/gopacket/layers"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/wire"
)

// Print writes c the way the wire view shows packets: a heading, one
// line per packet (its frame number, time since the first, addresses,
// opcode or CM message, QP and PSN), its headers indented below, the
// notes under it, and a tally at the end. name is the file's name as
// the learner gave it.
func Print(w io.Writer, name string, c *Capture, lang text.Lang) error {
	pw := &printer{w: w, lang: lang}
	pw.heading(name, c)
	notes := Notes(c)
	for i, p := range c.Packets {
		pw.packet(p, c.Packets[0])
		for _, n := range notes[i] {
			pw.note("↳ ", n.Text)
		}
	}
	pw.iwarp(c)
	pw.tally(notes)
	return pw.err
}

// printer writes lines and keeps the first write error.
type printer struct {
	w    io.Writer
	lang text.Lang
	err  error
}

func (pw *printer) line(format string, args ...any) {
	if pw.err == nil {
		_, pw.err = fmt.Fprintf(pw.w, format+"\n", args...)
	}
}

// note writes t under a packet, once per language asked for.
func (pw *printer) note(prefix string, t text.Text) {
	for _, l := range pw.lang.Each() {
		pw.line("        %s%s", prefix, t.In(l))
	}
}

func (pw *printer) heading(name string, c *Capture) {
	other := c.Frames - len(c.Packets)
	pw.line("%s", text.Text{
		EN: fmt.Sprintf("%s: %s, %s; frames: %d, RoCEv2 (UDP 4791): %d, other: %d", name, c.Format, linkName(c.LinkType), c.Frames, len(c.Packets), other),
		ZH: fmt.Sprintf("%s：%s，%s；帧：%d，RoCEv2（UDP 4791）：%d，其他：%d", name, c.Format, linkName(c.LinkType), c.Frames, len(c.Packets), other),
	}.Joined(pw.lang))
	pw.line("")
}

func linkName(lt layers.LinkType) string {
	switch lt {
	case layers.LinkTypeEthernet:
		return "Ethernet"
	case layers.LinkTypeLinuxSLL:
		return "Linux cooked (tcpdump -i any)"
	case layers.LinkTypeLinuxSLL2:
		return "Linux cooked v2 (tcpdump -i any)"
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6:
		return "raw IP"
	}
	return lt.String()
}

// packet writes one packet's line and its headers.
func (pw *printer) packet(p, first Packet) {
	at := p.Time.Sub(first.Time).Seconds()
	head := fmt.Sprintf("#%-4d %9.6f  %s → %s  ", p.Frame, at, p.Src, p.Dst)
	switch {
	case p.Err != nil:
		pw.line("%s%s", head, "UDP 4791 ?")
	case p.MAD:
		pw.line("%s%s", head, cmLine(p))
	default:
		pw.line("%s%s", head, ibLine(p.IB))
		for _, h := range headerLines(p.IB) {
			pw.line("        %s", h)
		}
	}
}

// cmLine names a MAD to QP 1: the CM message and the fields a learner
// matches against the rest of the capture.
func cmLine(p Packet) string {
	switch m := p.CM.(type) {
	case nil:
		return otherMAD(p.MADHead)
	case *wire.REQ:
		return fmt.Sprintf("CM REQ (MAD to QP1) qpn=0x%06x start_psn=%d retry_cnt=%d rnr_retry=%d", m.LocalQPN, m.StartingPSN, m.RetryCount, m.RNRRetryCount)
	case *wire.REP:
		return fmt.Sprintf("CM REP (MAD to QP1) qpn=0x%06x start_psn=%d rnr_retry=%d", m.LocalQPN, m.StartingPSN, m.RNRRetryCount)
	case *wire.REJ:
		name, _ := wire.RejectReasonName(m.Reason)
		return fmt.Sprintf("CM REJ (MAD to QP1) reason=%d %s", m.Reason, name)
	case *wire.DREQ:
		return fmt.Sprintf("CM DREQ (MAD to QP1) remote_qpn=0x%06x", m.RemoteQPN)
	}
	return "CM " + p.CM.Name() + " (MAD to QP1)"
}

// otherMAD names a MAD to QP 1 that is not a CM message rdmatour
// decodes: an MRA, another CM attribute, or another management class.
func otherMAD(h *wire.MAD) string {
	switch {
	case h == nil:
		return "MAD (QP1, undecodable)"
	case h.MgmtClass == wire.MgmtClassCM && h.AttributeID == wire.AttrMRA:
		return "CM MRA (MAD to QP1)"
	case h.MgmtClass == wire.MgmtClassCM:
		return fmt.Sprintf("CM attribute 0x%04x (MAD to QP1)", h.AttributeID)
	}
	return fmt.Sprintf("MAD class 0x%02x (to QP1, not the CM)", h.MgmtClass)
}

// ibLine is the transport packet's first line: "RC RDMA_WRITE_ONLY
// qp=0x000011 psn=5 A" (A: the ACK request bit).
func ibLine(p wire.Packet) string {
	s := fmt.Sprintf("%s qp=0x%06x psn=%d", p.BTH.Opcode, p.BTH.DestQP, p.BTH.PSN)
	if p.BTH.AckReq {
		s += " A"
	}
	return s
}

// headerLines are the extension headers and the payload's length, as
// the wire pane shows them. Payload bytes are never printed.
func headerLines(p wire.Packet) []string {
	var out []string
	if d := p.DETH; d != nil && p.BTH.DestQP != 1 {
		out = append(out, fmt.Sprintf("DETH qkey=0x%x src_qp=0x%06x", d.QKey, d.SrcQP))
	}
	if r := p.RETH; r != nil {
		out = append(out, fmt.Sprintf("RETH va=0x%x rkey=0x%x len=%d", r.VA, r.RKey, r.DMALen))
	}
	if a := p.AETH; a != nil {
		out = append(out, fmt.Sprintf("AETH %s msn=%d", a.Syndrome, a.MSN))
	}
	if p.ImmDt != nil {
		out = append(out, fmt.Sprintf("ImmDt 0x%08x", *p.ImmDt))
	}
	if a := p.AtomicETH; a != nil {
		ops := fmt.Sprintf("add=%d", a.SwapAdd)
		if p.BTH.Opcode == wire.RCCompareSwap {
			ops = fmt.Sprintf("compare=%d swap=%d", a.Compare, a.SwapAdd)
		}
		out = append(out, fmt.Sprintf("AtomicETH va=0x%x rkey=0x%x %s", a.VA, a.RKey, ops))
	}
	if a := p.AtomicAckETH; a != nil {
		out = append(out, fmt.Sprintf("AtomicAckETH orig=%d", a.OrigData))
	}
	if len(p.Payload) > 0 {
		out = append(out, fmt.Sprintf("payload %d B", len(p.Payload)))
	}
	return out
}

// tally counts what the notes called out.
func (pw *printer) tally(notes [][]Note) {
	count := map[NoteKind]int{}
	for _, ns := range notes {
		for _, n := range ns {
			count[n.Kind]++
		}
	}
	parts := []text.Text{
		{EN: fmt.Sprintf("retransmissions: %d", count[NoteRetransmit]), ZH: fmt.Sprintf("重传：%d", count[NoteRetransmit])},
		{EN: fmt.Sprintf("gaps: %d", count[NoteGap]), ZH: fmt.Sprintf("缺口：%d", count[NoteGap])},
		{EN: fmt.Sprintf("NAKs: %d", count[NoteNAK]), ZH: fmt.Sprintf("NAK：%d", count[NoteNAK])},
		{EN: fmt.Sprintf("duplicate ACKs: %d", count[NoteDupACK]), ZH: fmt.Sprintf("重复 ACK：%d", count[NoteDupACK])},
	}
	pw.line("")
	for _, l := range pw.lang.Each() {
		words := make([]string, len(parts))
		for i, p := range parts {
			words[i] = p.In(l)
		}
		sep := map[text.Lang]string{text.EN: ", ", text.ZH: "，"}[l]
		pw.line("%s", strings.Join(words, sep))
	}
}
