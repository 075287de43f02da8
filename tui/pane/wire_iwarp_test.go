package pane

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// TestIWARPLines: an iWARP message is one row like a RoCE packet's —
// direction, RDMAP opcode or MPA frame, the DDP fields that place it —
// then what it carries; where the capture stopped decoding says why, in
// both languages.
func TestIWARPLines(t *testing.T) {
	cli, srv := netip.MustParseAddrPort("10.0.3.2:48824"), netip.MustParseAddrPort("10.0.3.1:7471")
	read := &verbs.IWARPRead{SinkSTag: 0x6943c300, SinkTO: 0x7ff0dc001000, Size: 4096, SrcSTag: 0x467be300, SrcTO: 0x7f3114001000}
	for _, tt := range []struct {
		name string
		lang text.Lang
		p    verbs.Packet
		want []string
	}{
		{"MPA Request", text.EN, verbs.Packet{Outbound: true, IWARP: &verbs.IWARP{From: cli, To: srv, MPA: verbs.MPARequest, Rev: 2, PrivateLen: 19}},
			[]string{"→ out MPA Request rev 2 (TCP 10.0.3.2:48824 → 10.0.3.1:7471)", "     private data 19 B"}},
		{"MPA Reply rejected", text.ZH, verbs.Packet{IWARP: &verbs.IWARP{From: srv, To: cli, MPA: verbs.MPAReply, Rev: 2, Reject: true}},
			[]string{"← 收 MPA Reply rev 2 (TCP 10.0.3.1:7471 → 10.0.3.2:48824)", "     private data 0 B 被拒绝"}},
		{"Write", text.EN, verbs.Packet{PayloadLen: 42, IWARP: &verbs.IWARP{Tagged: true, Last: true, Opcode: verbs.RDMAPWrite, STag: 0x3265ca00, TO: 0x7f9ac4001000}},
			[]string{"← in  RDMA Write STag=0x3265ca00 last", "     DDP tagged TO=0x7f9ac4001000", "     payload 42 B"}},
		{"Send", text.EN, verbs.Packet{Outbound: true, PayloadLen: 16, IWARP: &verbs.IWARP{Last: true, Opcode: verbs.RDMAPSend, MSN: 1}},
			[]string{"→ out Send QN=0 MSN=1 MO=0 last", "     payload 16 B"}},
		{"Read Request", text.ZH, verbs.Packet{Outbound: true, PayloadLen: 28, IWARP: &verbs.IWARP{Last: true, Opcode: verbs.RDMAPReadRequest, QN: 1, MSN: 1, Read: read}},
			[]string{"→ 发 RDMA Read Request QN=1 MSN=1", "     源 STag=0x467be300 TO=0x7f3114001000 len=4096", "     目的 STag=0x6943c300 TO=0x7ff0dc001000"}},
		{"a Read Response segment, not the last", text.EN, verbs.Packet{Outbound: true, PayloadLen: 1428, IWARP: &verbs.IWARP{Tagged: true, Opcode: verbs.RDMAPReadResponse, STag: 0x6943c300, TO: 0x7ff0dc001594}},
			[]string{"→ out RDMA Read Response STag=0x6943c300", "     DDP tagged TO=0x7ff0dc001594", "     payload 1428 B"}},
		{"a gap", text.EN, verbs.Packet{IWARP: &verbs.IWARP{Fault: verbs.IWARPGap, FaultDetail: "a TCP segment is missing from the capture: 28 bytes arrived after byte 1030, which never did"}},
			[]string{"← in  ! a TCP segment is missing from the capture: the rest of this direction is not decoded", "     a TCP segment is missing from the capture: 28 bytes arrived after byte 1030, which never did"}},
		{"not MPA, in Chinese", text.ZH, verbs.Packet{IWARP: &verbs.IWARP{Fault: verbs.IWARPNotMPA, FaultDetail: `the stream does not begin with an MPA Request or Reply frame (it begins "\x1b[2J")`}},
			[]string{"← 收 ! 这个 TCP 流不是以 MPA 帧开头的：不解码", `     the stream does not begin with an MPA Request or Reply frame (it begins "\x1b[2J")`}},
	} {
		in := &Input{Styles: NewStyles(true), Lang: tt.lang}
		got := in.packetLines(tt.p)
		for i := range got {
			got[i] = ansi.Strip(got[i])
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
