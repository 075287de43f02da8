package pcapview

import (
	"net/netip"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/wire"
)

// NoteKind is what a note calls out.
type NoteKind int

const (
	NoteRetransmit NoteKind = iota // a request or READ response PSN seen again
	NoteGap                        // request PSNs skipped
	NoteDupACK                     // an ACK for a PSN already acknowledged
	NoteNAK                        // a NAK or RNR NAK, its syndrome explained
	NoteReject                     // a CM REJ, its reason named
	NoteMRA                        // a CM MRA: the peer needs more time
	NoteCut                        // the capture left bytes out (snap length)
	NoteUndecoded                  // UDP 4791, but not a transport packet we decode
	NoteBadICRC                    // the ICRC does not match the frame
)

// Note is one line under a packet: what happened and why.
type Note struct {
	Kind NoteKind
	Text text.Text
}

// flowKey is one direction of one QP's traffic: requests and responses
// are kept apart, since they number PSNs on their own.
type flowKey struct {
	src, dst netip.Addr
	qp       uint32
	class    opClass
}

// opClass sorts RC opcodes by who sends them.
type opClass int

const (
	classRequest  opClass = iota // SEND, WRITE, READ request, atomics
	classResponse                // READ responses, ATOMIC_ACKNOWLEDGE
	classACK                     // ACKNOWLEDGE
)

func classOf(op wire.Opcode) opClass {
	switch {
	case op == wire.RCAcknowledge:
		return classACK
	case op == wire.RCAtomicAcknowledge || (op >= wire.RCReadResponseFirst && op <= wire.RCReadResponseOnly):
		return classResponse
	}
	return classRequest
}

// flow is what the analysis remembers of one flow.
type flow struct {
	seen map[uint32]bool
	next uint32 // the PSN a request without loss would carry next
	// readSpans are the PSN counts the last READ request may use: one
	// per possible path MTU, since the capture does not say which.
	readSpans []uint32
}

// hosts is a requester and its responder, by address.
type hosts struct{ requester, responder netip.Addr }

// analysis is what Notes remembers while it walks a capture.
type analysis struct {
	flows map[flowKey]*flow
	// rnr holds the hosts whose last answer was an RNR NAK: the
	// requester's next resend is the RNR retry, not a go-back-N.
	rnr map[hosts]bool
}

// Notes explains every packet of c: Notes(c)[i] are the notes under
// c.Packets[i].
func Notes(c *Capture) [][]Note {
	out := make([][]Note, len(c.Packets))
	an := analysis{flows: map[flowKey]*flow{}, rnr: map[hosts]bool{}}
	for i, p := range c.Packets {
		out[i] = an.notesOf(p)
	}
	return out
}

// notesOf is one packet's notes, updating the flows it belongs to.
func (an analysis) notesOf(p Packet) []Note {
	flows := an.flows
	var notes []Note
	if p.Cut > 0 {
		notes = append(notes, cutNote(p.Cut))
	}
	if p.BadICRC {
		notes = append(notes, badICRCNote())
	}
	switch {
	case p.Err != nil:
		return append(notes, undecodedNote(p.Err))
	case p.MAD:
		if rej, ok := p.CM.(*wire.REJ); ok {
			notes = append(notes, rejectNote(rej.Reason))
		}
		if h := p.MADHead; h != nil && h.MgmtClass == wire.MgmtClassCM && h.AttributeID == wire.AttrMRA {
			notes = append(notes, mraNote())
		}
		return notes
	case p.IB.BTH.Opcode.Transport() != "RC":
		return notes // UD has no PSN order to keep
	}
	op, psn := p.IB.BTH.Opcode, p.IB.BTH.PSN
	key := flowKey{src: p.Src, dst: p.Dst, qp: p.IB.BTH.DestQP, class: classOf(op)}
	f := flows[key]
	if f == nil {
		f = &flow{seen: map[uint32]bool{}, next: psn}
		flows[key] = f
	}
	switch key.class {
	case classRequest:
		h := hosts{requester: p.Src, responder: p.Dst}
		notes = append(notes, f.request(p, an.rnr[h])...)
		delete(an.rnr, h)
	case classResponse:
		notes = append(notes, f.response(op, psn)...)
	case classACK:
		h := hosts{requester: p.Dst, responder: p.Src}
		if a := p.IB.AETH; a != nil && a.Syndrome>>5 != 0 {
			if _, rnr := a.Syndrome.RNRTimer(); rnr {
				an.rnr[h] = true
			}
			return append(notes, nakNote(a.Syndrome)) // a NAK acknowledges nothing
		}
		delete(an.rnr, h)
		if f.seen[psn] {
			notes = append(notes, dupACKNote(psn))
		}
	}
	f.seen[psn] = true
	if a := p.IB.AETH; a != nil && a.Syndrome>>5 != 0 {
		notes = append(notes, nakNote(a.Syndrome))
	}
	return notes
}

// request checks a request's PSN against the flow: seen before is a
// retransmission (the RNR retry when afterRNR), ahead of the next one is
// a gap.
func (f *flow) request(p Packet, afterRNR bool) []Note {
	psn := p.IB.BTH.PSN
	var notes []Note
	switch {
	case f.seen[psn] && afterRNR:
		notes = append(notes, rnrRetryNote(psn))
	case f.seen[psn]:
		notes = append(notes, retransmitNote(psn))
	case psn != f.next && !f.readLanded(psn):
		if psnDiff(psn, f.next) > 0 {
			notes = append(notes, gapNote(f.next, (psn-1)&psnMask))
		} else {
			notes = append(notes, wentBackNote(psn))
		}
	}
	f.next = (psn + 1) & psnMask
	f.readSpans = nil
	if r := p.IB.RETH; p.IB.BTH.Opcode == wire.RCReadRequest && r != nil {
		f.readSpans = readSpans(r.DMALen)
	}
	return notes
}

// response checks a READ response or atomic ACK against the flow: seen
// before is an answer to a duplicate request, a skip inside a READ a
// gap.
func (f *flow) response(op wire.Opcode, psn uint32) []Note {
	var notes []Note
	if f.seen[psn] {
		notes = append(notes, responseAgainNote(psn))
	} else if from, ok := f.responseGap(op, psn); ok {
		notes = append(notes, responseGapNote(from, (psn-1)&psnMask))
	}
	f.next = (psn + 1) & psnMask
	return notes
}

// responseGap says whether a READ response skipped PSNs inside its READ:
// a MIDDLE or LAST comes right after its READ's FIRST or MIDDLE, so one
// that does not, with the next expected PSN (from) missing, is a gap. A
// FIRST or ONLY starts a READ, whose first PSN is the request's, which
// this flow does not see: no gap is called there.
func (f *flow) responseGap(op wire.Opcode, psn uint32) (from uint32, ok bool) {
	if op != wire.RCReadResponseMiddle && op != wire.RCReadResponseLast {
		return 0, false
	}
	return f.next, psnDiff(psn, f.next) > 0
}

// readLanded says psn is where the request after the last READ would
// be, at one of the path MTUs.
func (f *flow) readLanded(psn uint32) bool {
	for _, n := range f.readSpans {
		if psn == (f.next-1+n)&psnMask {
			return true
		}
	}
	return false
}

// readSpans are the PSNs a READ of length bytes takes at each path MTU
// (IBV_MTU_256 to IBV_MTU_4096): one per response packet, at least one.
func readSpans(length uint32) []uint32 {
	var spans []uint32
	for mtu := uint32(256); mtu <= 4096; mtu *= 2 {
		spans = append(spans, max(1, (length+mtu-1)/mtu))
	}
	return spans
}

const psnMask = 1<<24 - 1

// psnDiff is a-b in 24-bit PSN arithmetic, in -2^23..2^23-1.
func psnDiff(a, b uint32) int32 {
	d := int32((a - b) & psnMask)
	if d >= 1<<23 {
		d -= 1 << 24
	}
	return d
}
