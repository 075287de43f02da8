package sim

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// runOutcome is everything a responder shows after a WRITE arrived: its
// answers, what its trace says it received, its counters, the target
// MR's bytes and its QP's state.
type runOutcome struct {
	answers  []string
	received []string
	counters map[string]uint64
	memory   []byte
	state    verbs.QPState
}

// runCase is one WRITE sent to a raw server, first as packet frames and
// then as run frames: the two must end the same.
type runCase struct {
	name   string
	length int
	// edit changes the run before it is sent (a wrong rkey, a PSN ahead).
	edit func(r *msgRun, rs *rawServer)
	// before is sent first, as packet frames (a SEND in progress).
	before func(rs *rawServer, mr verbs.MR) []byte
	// want is the answers when both ways agree (a control on the table).
	want []string
}

func runCases() []runCase {
	return []runCase{
		{name: "three packets land", length: 3000, want: []string{"ACKNOWLEDGE psn+2 syn 0x1f"}},
		// 70 packets: rxe's requester asks for an ACK on the 66th too
		// (msgrun.go reqAckEvery).
		{name: "two run frames (70 KiB) land", length: 70 << 10, want: []string{"ACKNOWLEDGE psn+65 syn 0x1f", "ACKNOWLEDGE psn+69 syn 0x1f"}},
		{name: "wrong rkey", length: 3000, edit: func(r *msgRun, _ *rawServer) { r.rkey ^= 0x80 },
			want: []string{"ACKNOWLEDGE psn+0 syn 0x62"}},
		{name: "one byte past the MR", length: 3000, edit: func(r *msgRun, _ *rawServer) { r.remoteAddr += 72<<10 - 2999 },
			want: []string{"ACKNOWLEDGE psn+0 syn 0x62"}},
		{name: "PSN ahead", length: 3000, edit: func(r *msgRun, _ *rawServer) { r.firstPSN = psnAdd(r.firstPSN, 1) },
			want: []string{"ACKNOWLEDGE psn+0 syn 0x60"}},
		{name: "PSN behind: duplicates", length: 3000, edit: func(r *msgRun, _ *rawServer) { r.firstPSN = psnAdd(r.firstPSN, -5) },
			want: []string{"ACKNOWLEDGE psn-1 syn 0x1f", "ACKNOWLEDGE psn-1 syn 0x1f", "ACKNOWLEDGE psn-1 syn 0x1f"}},
		{name: "the sender's MTU is larger", length: 3000, edit: func(r *msgRun, _ *rawServer) {
			r.pmtu *= 2
			r.npkts = (r.length + r.pmtu - 1) / r.pmtu
			r.to = r.npkts
		}, want: []string{"ACKNOWLEDGE psn+0 syn 0x61"}},
		{name: "another WRITE in progress", length: 3000, before: func(rs *rawServer, mr verbs.MR) []byte {
			return rs.peer.frame(rs.peer.next(packet{Opcode: verbs.OpRDMAWriteFirst, HasRETH: true,
				RETH: verbs.RETH{VA: mr.Addr(), RKey: mr.RKey(), DMALen: 2048}, Payload: make([]byte, 1024)}))
		}, want: []string{"ACKNOWLEDGE psn+1 syn 0x61"}},
		{name: "a QP that is not there", length: 3000, edit: func(r *msgRun, _ *rawServer) { r.destQP ^= 0x5a5a }},
	}
}

func TestRunFramesEndAsPacketFramesDo(t *testing.T) {
	for _, tc := range runCases() {
		t.Run(tc.name, func(t *testing.T) {
			byPacket := sendWrite(t, tc, byPackets)
			for _, how := range []framing{asRun, asRunInTwo} {
				byRun := sendWrite(t, tc, how)
				if !reflect.DeepEqual(byPacket, byRun) {
					t.Errorf("packet frames and %s differ:\npackets: %+v\nrun:     %+v", how, byPacket, byRun)
				}
			}
			if !reflect.DeepEqual(byPacket.answers, tc.want) {
				t.Errorf("answers %q, want %q", byPacket.answers, tc.want)
			}
		})
	}
}

// framing is how sendWrite puts a WRITE on the wire.
type framing int

const (
	byPackets framing = iota
	// asRun writes the run frames at once.
	asRun
	// asRunInTwo holds back the second half of the stream for a moment:
	// the reader waits in the middle of a payload.
	asRunInTwo
)

func (f framing) String() string {
	return [...]string{"packet frames", "run frames", "run frames in two writes"}[f]
}

// sendWrite sends tc's WRITE to a fresh raw server, framed as how says,
// and returns what the server shows once it is quiet.
func sendWrite(t *testing.T, tc runCase, how framing) runOutcome {
	rs := newRawServer(t)
	defer rs.finish(t)
	mr := rs.srv.regMR(t, 72<<10, verbs.AccessLocalWrite|verbs.AccessRemoteWrite)
	data := make([]byte, tc.length)
	for i := range data {
		data[i] = byte(i*7 + 1)
	}
	var stream []byte
	if tc.before != nil {
		stream = tc.before(rs, mr)
	}
	pmtu := rs.srv.qp.(*qp).pmtu
	r := msgRun{write: true, destQP: rs.peer.srvQPN, firstPSN: rs.peer.psn, length: tc.length, pmtu: pmtu,
		npkts: (tc.length + pmtu - 1) / pmtu, remoteAddr: mr.Addr(), rkey: mr.RKey()}
	r.to = r.npkts
	if tc.edit != nil {
		tc.edit(&r, rs)
	}
	stream = append(stream, encodeWrite(&r, data, how != byPackets)...)
	if how == asRunInTwo {
		rs.peer.write(t, stream[:len(stream)/2])
		time.Sleep(50 * time.Millisecond)
		stream = stream[len(stream)/2:]
	}
	rs.peer.write(t, stream)
	got, _, _ := rs.peer.readAll(300 * time.Millisecond)
	return outcomeOf(t, rs, mr, got)
}

// encodeWrite is r with data as run frames (as encodeRunFrames cuts
// them) or as one packet frame per packet.
func encodeWrite(r *msgRun, data []byte, asRun bool) []byte {
	var b []byte
	if asRun {
		per := maxRunPayload / r.pmtu
		for i := r.from; i < r.to; i += per {
			j := min(i+per, r.to)
			hi := min(j*r.pmtu, r.length)
			b = append(appendRunHeader(b, r, i, j, hi-i*r.pmtu), data[i*r.pmtu:hi]...)
		}
		return b
	}
	var pk packet
	for i := r.from; i < r.to; i++ {
		r.fill(&pk, i)
		pk.segs, pk.segLen = nil, 0
		pk.Payload = data[i*r.pmtu : min((i+1)*r.pmtu, r.length)]
		b = append(appendPacketHeader(b, &pk, len(pk.Payload)), pk.Payload...)
	}
	return b
}

func outcomeOf(t *testing.T, rs *rawServer, mr verbs.MR, answers []packet) runOutcome {
	var o runOutcome
	for _, pk := range answers {
		o.answers = append(o.answers, fmt.Sprintf("%s psn%+d syn 0x%02x", verbs.OpcodeName(pk.Opcode), psnDiff(pk.PSN, rawPSN), pk.AETH.Syndrome))
	}
	for _, p := range rs.srv.p.dev.Packets(0) {
		if !p.Outbound {
			o.received = append(o.received, fmt.Sprintf("%s psn%+d ackreq=%v len=%d reth=%v", verbs.OpcodeName(p.Opcode), psnDiff(p.PSN, rawPSN), p.AckReq, p.PayloadLen, p.RETH != nil))
		}
	}
	var err error
	o.counters, err = rs.srv.p.dev.Counters(1)
	must(t, err)
	o.memory, err = mr.Read(0, mr.Len())
	must(t, err)
	o.memory = bytes.TrimRight(o.memory, "\x00")
	q := rs.srv.qp.(*qp)
	q.mu.Lock()
	o.state = q.state
	q.mu.Unlock()
	return o
}
