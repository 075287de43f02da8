package pcapview

import (
	"fmt"
	"net/netip"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/wire"
)

// An iWARP capture (siw, or an iWARP NIC) is TCP, not UDP 4791: its
// connections are found by the MPA frame they begin with, and each
// message is listed by RDMAP opcode and DDP queue number (wire's
// DecodeIWARPStream). Only Ethernet captures are reassembled.

// IWARPMessage is one MPA frame or FPDU of a direction of an iWARP
// connection.
type IWARPMessage struct {
	From, To netip.AddrPort
	Msg      wire.IWARPMessage
}

// iwarpOf decodes the iWARP connections among frames, and says what
// could not be decoded.
func iwarpOf(frames [][]byte) (msgs []IWARPMessage, problems []string) {
	for _, s := range wire.IWARPStreams(frames) {
		ms, rest, err := wire.DecodeIWARPStream(s.Data)
		for _, m := range ms {
			msgs = append(msgs, IWARPMessage{From: s.From, To: s.To, Msg: m})
		}
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s > %s: %v", s.From, s.To, err))
		case s.Gap:
			problems = append(problems, fmt.Sprintf("%s > %s: a TCP segment is missing from the capture; decoding stops there", s.From, s.To))
		case len(rest) > 0:
			problems = append(problems, fmt.Sprintf("%s > %s: the capture ends %d bytes into an FPDU", s.From, s.To, len(rest)))
		}
	}
	return msgs, problems
}

// iwarp prints the iWARP section: a heading, one line per message.
func (pw *printer) iwarp(c *Capture) {
	if len(c.IWARP) == 0 && len(c.IWARPProblems) == 0 {
		return
	}
	pw.line("%s", text.Text{
		EN: fmt.Sprintf("iWARP over TCP (MPA, DDP, RDMAP): %d messages", len(c.IWARP)),
		ZH: fmt.Sprintf("TCP 上的 iWARP（MPA、DDP、RDMAP）：%d 条消息", len(c.IWARP)),
	}.Joined(pw.lang))
	for _, m := range c.IWARP {
		pw.line("  %s > %s  %s", m.From, m.To, m.Msg.Summary())
	}
	for _, p := range c.IWARPProblems {
		pw.line("  ! %s", p)
	}
}
