package steps_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// TestMessageSizeSegments: with --message-size 3000 the client's WRITE
// leaves the simulated NIC as FIRST, MIDDLE and LAST at rxe's 1024-byte
// path MTU, one PSN each, the RETH (with the whole length) on FIRST only;
// the server receives the padded message whole.
func TestMessageSizeSegments(t *testing.T) {
	const size = 3000
	p := newPairOf(t, steps.Config{Notify: steps.NotifySend, MessageSize: size})
	p.runTurns(t, -1)
	var writes []verbs.Packet
	for _, wp := range p.cli.Snapshot().Packets {
		if wp.Outbound && wp.Step == "post-write" {
			writes = append(writes, wp.Packet)
		}
	}
	want := []struct {
		op     uint8
		reth   bool
		length int
	}{{verbs.OpRDMAWriteFirst, true, 1024}, {verbs.OpRDMAWriteMiddle, false, 1024}, {verbs.OpRDMAWriteLast, false, size - 2048}}
	if len(writes) != len(want) {
		t.Fatalf("the WRITE went out as %d packets, want %d: %s", len(writes), len(want), summaries(writes))
	}
	for i, w := range want {
		pk := writes[i]
		if pk.Opcode != w.op || (pk.RETH != nil) != w.reth || pk.PayloadLen != w.length {
			t.Errorf("packet %d: %s, want %s with %d bytes (RETH %v)", i, pk.Summary(), verbs.OpcodeName(w.op), w.length, w.reth)
		}
		if i > 0 && pk.PSN != (writes[i-1].PSN+1)&0xFFFFFF {
			t.Errorf("packet %d: PSN %d after %d, want consecutive PSNs", i, pk.PSN, writes[i-1].PSN)
		}
	}
	if r := writes[0].RETH; r == nil || r.DMALen != size {
		t.Errorf("FIRST's RETH %+v: want the whole length, %d", r, size)
	}
	res := p.srv.Snapshot().Result
	if res == nil {
		t.Fatal("the server has no result")
	}
	if got := string(res.Message); len(got) != size-1 || !strings.HasPrefix(got, steps.DefaultMessage) || strings.TrimRight(got, " ") != steps.DefaultMessage {
		t.Errorf("the server's buffer holds %d bytes starting %.50q; want the message padded with spaces to %d", len(got), got, size-1)
	}
}

func summaries(ps []verbs.Packet) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Summary())
	}
	return fmt.Sprint(s)
}
