package explain

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/rdmatour/rdmatour/pcapview"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

// Ranges of the numbered enums.
const (
	wcStatusCount = int(verbs.WCTMRndvIncomplete) + 1
	cmEventCount  = int(verbs.EventTimewaitExit) + 1
	maxErrno      = 133 // EHWPOISON, the last Linux errno
)

func find(table []entry, n int) (entry, bool) {
	for _, e := range table {
		if e.n == n {
			return e, true
		}
	}
	return entry{}, false
}

// fill completes m from the table row for m.Number, or says only what
// the library prints.
func fill(m Meaning, table []entry) Meaning {
	if e, ok := find(table, m.Number); ok {
		m.What, m.Causes = e.what, e.causes
	} else if m.Printed != "" {
		m.What = text.Same(m.Printed)
	}
	return m
}

// errnoMeaning is errno n, if it is one an RDMA program meets.
func errnoMeaning(n int) (Meaning, bool) {
	if n <= 0 || n > maxErrno {
		return Meaning{}, false
	}
	e := syscall.Errno(n)
	name := verbs.ErrnoName(e)
	_, described := find(errnos, n)
	if name == fmt.Sprintf("errno %d", n) && !described {
		return Meaning{}, false
	}
	return fill(Meaning{Kind: KindErrno, Number: n, Name: name, Printed: strerror(e)}, errnos), true
}

// strerror is the errno's words as glibc's strerror prints them (Go's
// table is glibc's, lower-cased).
func strerror(e syscall.Errno) string {
	s := e.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func wcStatusMeaning(n int) (Meaning, bool) {
	if n < 0 || n >= wcStatusCount {
		return Meaning{}, false
	}
	st := verbs.WCStatus(n)
	return fill(Meaning{Kind: KindWCStatus, Number: n, Name: st.CName(), Printed: st.String()}, wcStatuses), true
}

func cmEventMeaning(n int) (Meaning, bool) {
	if n < 0 || n >= cmEventCount {
		return Meaning{}, false
	}
	m := fill(Meaning{Kind: KindCMEvent, Number: n, Name: verbs.CMEventType(n).String()}, cmEvents)
	return m, true
}

// cmStatusMeaning is event->status n: a REJ reason when positive, a
// negative errno when negative.
func cmStatusMeaning(n int) (Meaning, bool) {
	switch {
	case n == 0:
		return Meaning{Kind: KindCMStatus, Number: 0, Name: "0", What: text.Text{EN: "the event reports success", ZH: "事件表示成功"}}, true
	case n < 0:
		e, ok := errnoMeaning(-n)
		if !ok {
			return Meaning{}, false
		}
		e.Kind, e.Number, e.Name = KindCMStatus, n, "-"+e.Name
		e.What = text.Text{EN: "a negative errno: " + e.What.EN, ZH: "负的 errno：" + e.What.In(text.ZH)}
		return e, true
	}
	name, ok := wire.RejectReasonName(uint16(n))
	if !ok || n > 0xFFFF {
		return Meaning{}, false
	}
	m := Meaning{Kind: KindCMStatus, Number: n, Name: name,
		What: text.Text{EN: "the reason in the peer's CM REJ: " + name, ZH: "对端 CM 的 REJ 里的原因：" + name}}
	return fill(m, rejectCauses), true
}

// syndromeMeaning is AETH syndrome n (0-255).
func syndromeMeaning(n int) (Meaning, bool) {
	if n < 0 || n > 0xFF {
		return Meaning{}, false
	}
	s := wire.Syndrome(n)
	m := Meaning{Kind: KindSyndrome, Number: n, Name: s.String()}
	if _, rnr := s.RNRTimer(); rnr {
		m.What, m.Causes = pcapview.NAKMeaning(s), rnrCauses
		return m, true
	}
	switch s.Kind() {
	case "ACK":
		m.What = text.Text{
			EN: fmt.Sprintf("ACK: the responder acknowledges every request up to the packet's PSN; the low five bits (%d) are its credit count, 31 meaning none given", n&0x1F),
			ZH: fmt.Sprintf("ACK：响应端确认到这个报文的 PSN 为止的所有请求；低五位（%d）是它给出的信用数，31 表示没有给", n&0x1F),
		}
		return m, true
	case "NAK":
		if n <= int(wire.SyndromeNAKInvRDReq) { // the five NAK codes IBA defines
			e, _ := find(syndromes, n)
			m.What, m.Causes = pcapview.NAKMeaning(s), e.causes
			return m, true
		}
	}
	m.What = text.Text{EN: "a reserved syndrome: no RoCE end host should send it", ZH: "保留的 syndrome：RoCE 端点不应发送"}
	return m, true
}
