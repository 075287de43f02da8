package main

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/record"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
	"github.com/rdmatour/rdmatour/wire"
)

// TestSiwTwoHostsWireRows reads what scripts/qemu/siw-two-guests.sh kept
// of the write and read tours on Soft-iWARP across two guests: tcpdump's
// capture on B's eth0 (TOUR.pcap), each side's --record (a-TOUR.rec on
// A, 10.0.3.1, the server; b-TOUR.rec on B) and each side's own --pcap.
// The wire pane of each side, drawn from its recording, must list the
// iWARP messages tcpdump's capture holds (decoded by wire's whole-file
// decoder, not the live one), each direction in its order, with the same
// opcode, QN/MSN or STag; and rdmatour's own captures must hold them too.
func TestSiwTwoHostsWireRows(t *testing.T) {
	dir := os.Getenv("RDMATOUR_SIW_DIR")
	if dir == "" {
		t.Skip("RDMATOUR_SIW_DIR is not set: run scripts/qemu/siw-two-guests.sh")
	}
	for _, tour := range []string{"write", "read"} {
		t.Run(tour, func(t *testing.T) {
			want := iwarpOfPcap(t, filepath.Join(dir, tour+".pcap"))
			if len(want) < 4 {
				t.Fatalf("tcpdump's capture holds %d iWARP messages: %q", len(want), want)
			}
			for _, side := range []struct{ name, addr string }{{"a", "10.0.3.1"}, {"b", "10.0.3.2"}} {
				addr := netip.MustParseAddr(side.addr)
				rows := wireRows(t, filepath.Join(dir, side.name+"-"+tour+".rec"))
				for _, out := range []bool{true, false} {
					got, exp := only(rows, dirMark(out)), rowsSeenFrom(want, addr, out)
					if strings.Join(got, "\n") != strings.Join(exp, "\n") {
						t.Errorf("%s's wire pane, %s:\n%s\ntcpdump's capture:\n%s", side.name, dirMark(out), strings.Join(got, "\n"), strings.Join(exp, "\n"))
					}
				}
				t.Logf("%s (%s): %d rows: %s", side.name, side.addr, len(rows), strings.Join(rows, " | "))
				own := rowsOf(iwarpOfPcap(t, filepath.Join(dir, side.name+"-"+tour+".rdmatour.pcap")))
				if strings.Join(own, "\n") != strings.Join(rowsOf(want), "\n") {
					t.Errorf("%s's --pcap holds\n%s\ntcpdump's\n%s", side.name, strings.Join(own, "\n"), strings.Join(rowsOf(want), "\n"))
				}
			}
		})
	}
}

// iwarpMsg is one message of a capture, with its direction.
type iwarpMsg struct {
	from, to netip.AddrPort
	msg      wire.IWARPMessage
}

func (m iwarpMsg) String() string {
	return m.from.String() + " > " + m.to.String() + ": " + m.msg.Summary()
}

func rowsOf(ms []iwarpMsg) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.String())
	}
	return out
}

// iwarpOfPcap decodes a capture's iWARP connections whole (wire's
// IWARPStreams, as `rdmatour pcap` does), failing on any damage.
func iwarpOfPcap(t *testing.T, path string) []iwarpMsg {
	t.Helper()
	var out []iwarpMsg
	for _, s := range wire.IWARPStreams(pcapFrames(t, path)) {
		msgs, rest, err := wire.DecodeIWARPStream(s.Data)
		if err != nil || len(rest) != 0 || s.Gap {
			t.Fatalf("%s: %s > %s: err %v, %d bytes left, gap %v", path, s.From, s.To, err, len(rest), s.Gap)
		}
		for _, m := range msgs {
			out = append(out, iwarpMsg{s.From, s.To, m})
		}
	}
	return out
}

// wireRows is the first line of every packet the wire pane draws from a
// recording's last state (its other lines are the packet's fields).
func wireRows(t *testing.T, path string) []string {
	t.Helper()
	rec, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in := &pane.Input{Styles: pane.NewStyles(true), Lang: text.EN, Snaps: []steps.Snapshot{rec.Sides[0].Final}}
	var rows []string
	for _, l := range in.WireLines(0, 400) {
		if l = ansi.Strip(l); strings.HasPrefix(l, "→ ") || strings.HasPrefix(l, "← ") {
			rows = append(rows, l)
		}
	}
	return rows
}

func dirMark(out bool) string {
	if out {
		return "→ out "
	}
	return "← in  "
}

func only(rows []string, prefix string) []string {
	var out []string
	for _, r := range rows {
		if strings.HasPrefix(r, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// rowsSeenFrom is the pane's first line for each message a host at addr
// sent (out) or received, in stream order: written here from wire's
// fields, not with the pane's code.
func rowsSeenFrom(ms []iwarpMsg, addr netip.Addr, out bool) []string {
	var rows []string
	for _, m := range ms {
		if (m.from.Addr() == addr) != out {
			continue
		}
		g, last := m.msg, ""
		if g.Last {
			last = " last"
		}
		var row string
		switch {
		case g.MPA != "":
			row = fmt.Sprintf("MPA %s rev %d (TCP %s → %s)", g.MPA, g.Rev, m.from, m.to)
		case g.Tagged:
			row = fmt.Sprintf("%s STag=0x%x%s", g.Opcode, g.STag, last)
		case g.Opcode == wire.RDMAPReadRequest:
			row = fmt.Sprintf("%s QN=%d MSN=%d", g.Opcode, g.QN, g.MSN)
		default:
			row = fmt.Sprintf("%s QN=%d MSN=%d MO=%d%s", g.Opcode, g.QN, g.MSN, g.MO, last)
		}
		rows = append(rows, dirMark(out)+row)
	}
	return rows
}
