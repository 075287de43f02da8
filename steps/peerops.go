package steps

import (
	"errors"
	"fmt"
	"github.com/rdmatour/rdmatour/text"

	"github.com/rdmatour/rdmatour/verbs"
)

// A READ or an atomic leaves the responder no completion, and a client
// that dies before its operation hangs up exactly as one that finished
// (its kernel sends the DREQ). So the read and atomic servers' end-of-tour
// sentences say only what this side observed: the READ responses and
// atomic acknowledgements its NIC sent, where the packets can be seen, and
// the counter's value read back — never what the tour plan says the client
// does.

// peerOps counts the peer's requests this side's NIC answered, tallied as
// packets are read from the device (the packet list keeps only the last
// ones).
type peerOps struct {
	reads   int // READ requests answered (a first or only response)
	atomics int // atomics answered (ATOMIC_ACKNOWLEDGE)
	// iwarpStopped: the capture stopped decoding this connection (a gap,
	// a malformed FPDU), so what came after it is not counted.
	iwarpStopped bool
}

// tally counts p if it answers a peer's READ or atomic. Called with s.mu
// held, for this side's own packets.
func (o *peerOps) tally(p verbs.Packet) {
	if m := p.IWARP; m != nil {
		// One Read Response message per READ, its last DDP segment
		// marked last (wire/testdata/siw-twohosts-read.pcap: three
		// segments for 4096 B, only the third last).
		o.iwarpStopped = o.iwarpStopped || m.Fault != verbs.IWARPOK
		if p.Outbound && m.IsResponse() && m.Last {
			o.reads++
		}
		return
	}
	if !p.Outbound {
		return
	}
	switch p.Opcode {
	case verbs.OpRDMAReadRespFirst, verbs.OpRDMAReadRespOnly:
		o.reads++
	case verbs.OpAtomicAcknowledge:
		o.atomics++
	}
}

// answeredOps is what this side's NIC answered of the peer's READs and
// atomics; seen is false when this side cannot see its packets (a real
// device with no capture, or both ends on one host), and then the counts
// say nothing.
func (s *Session) answeredOps() (ops peerOps, seen bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dev != nil {
		s.refreshPackets()
	}
	ws := s.wireStatus()
	seen = s.sawWire || ws.State == verbs.TraceSimulated || (ws.State == verbs.TraceCapturing && !ws.OneHost)
	if s.iwarp && s.answered.iwarpStopped {
		// The capture lost part of the connection: a READ answered after
		// it was not counted.
		seen = false
	}
	return s.answered, seen
}

// followsPlan says both sides run the same plain tour, so the peer was
// meant to do its operations: a lesson, or a peer on another tour, may
// leave them undone on purpose.
func (s *Session) followsPlan() bool {
	return s.cfg.Lesson == nil && s.mismatchNote(s.PeerInfo()).EN == ""
}

// errPeerSkipped is the peer hanging up before the operations the plan
// gives it.
var errPeerSkipped = errors.New("counted from the packets this side's NIC sent and the counter read back")

// peerSkipped is the error for a client that hung up having done only done of
// want operations (what names them).
func peerSkipped(done, want int, what text.Text) error {
	return problem(errPeerSkipped,
		text.Text{EN: fmt.Sprintf("the client hung up after %d of its %d %s: it quit, failed or was killed first", done, want, what.EN),
			ZH: fmt.Sprintf("client 只做了 %d/%d 个%s就断开了：它提前退出、出错或被杀掉了", done, want, what.ZH)},
		text.Text{EN: "start both sides again", ZH: "两端都重新启动"})
}

// readSummary is the read server's sentence from what it observed.
func readSummary(ops peerOps, seen bool) text.Text {
	switch {
	case !seen:
		return text.Text{EN: "The client hung up. Whether it READ this buffer first, this side cannot tell: a READ leaves the responder no completion, and no capture shows this side's packets.",
			ZH: "client 断开了。它之前有没有 READ 这块 buffer，本端看不出来：READ 在响应端不产生完成，也没有抓包能看到本端的包。"}
	case ops.reads == 0:
		return text.Text{EN: "The client hung up without READing this server's buffer: this side's NIC answered no READ (the client quit, failed or was killed before its READ).",
			ZH: "client 没有 READ 本端 server 的 buffer 就断开了：本端网卡没有应答过任何 READ（client 在 READ 之前就退出、出错或被杀掉了）。"}
	}
	return text.Text{EN: fmt.Sprintf("The client READ this server's buffer and hung up: this side's NIC answered %d READ (seen on the wire), the server got no completion and its CPU did nothing for it.", ops.reads),
		ZH: fmt.Sprintf("client READ 了本端 server 的 buffer 后断开：本端网卡应答了 %d 个 READ（线上看得到），server 没有收到任何完成，它的 CPU 也没为此做任何事。", ops.reads)}
}

// atomicsPlanned is how many atomics the atomic tour's client posts.
const atomicsPlanned = 2

// atomicSummary is the atomic server's sentence from what it observed:
// the atomics its NIC answered where the packets show them, and the
// counter's value v read back.
func atomicSummary(ops peerOps, seen, shared bool, v uint64) text.Text {
	if shared {
		if !seen {
			return text.Text{EN: fmt.Sprintf("The room's shared counter (it started at %d) is %d as this attendee leaves: the attendees' atomics ran in this server's NIC, its CPU took no part.", CounterStart, v),
				ZH: fmt.Sprintf("这位学员离开时，教室的共享计数器（初值 %d）是 %d：学员们的原子操作在本端网卡里完成，CPU 没有参与。", CounterStart, v)}
		}
		return text.Text{EN: fmt.Sprintf("This server's NIC answered %d atomic(s) of this attendee; the room's shared counter (it started at %d) is %d as they leave, the CPU took no part.", ops.atomics, CounterStart, v),
			ZH: fmt.Sprintf("本端网卡应答了这位学员的 %d 个原子操作；学员离开时，教室的共享计数器（初值 %d）是 %d，CPU 没有参与。", ops.atomics, CounterStart, v)}
	}
	switch {
	case v == CounterStart && (!seen || ops.atomics == 0):
		return text.Text{EN: fmt.Sprintf("The server's counter is still %d: no atomic of the client changed it (the client quit, failed or was killed before its atomics).", v),
			ZH: fmt.Sprintf("server 的计数器还是 %d：client 的原子操作一个也没有改动它（client 在原子操作之前就退出、出错或被杀掉了）。", v)}
	case !seen:
		return text.Text{EN: fmt.Sprintf("The server's counter went from %d to %d: the client's atomics changed it in this server's NIC, its CPU took no part.", CounterStart, v),
			ZH: fmt.Sprintf("server 的计数器从 %d 变成了 %d：是 client 的原子操作在本端网卡里改的，CPU 没有参与。", CounterStart, v)}
	}
	return text.Text{EN: fmt.Sprintf("The server's counter went from %d to %d: this side's NIC answered %d of the client's atomics (seen on the wire), its CPU took no part.", CounterStart, v, ops.atomics),
		ZH: fmt.Sprintf("server 的计数器从 %d 变成了 %d：本端网卡应答了 client 的 %d 个原子操作（线上看得到），CPU 没有参与。", CounterStart, v, ops.atomics)}
}

// atomicsDone is how many of the client's atomics this side knows ran:
// the answered count where the packets show it, else what the counter
// proves (unchanged: none; a room's shared counter proves nothing of one
// attendee).
func atomicsDone(ops peerOps, seen, shared bool, v uint64) (done int, known bool) {
	switch {
	case seen:
		return ops.atomics, true
	case v == CounterStart && !shared:
		return 0, true
	}
	return 0, false
}
