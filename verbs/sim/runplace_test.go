package sim

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// A 64 KiB WRITE whose run frame stops halfway: the reader has placed
// what came straight into the MR and waits for the rest. What happens
// meanwhile on the server's side, and what the WRITE ends as.
func TestRunPayloadInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name string
		// meanwhile runs while the reader waits; it may change the QP or MR.
		meanwhile func(t *testing.T, rs *rawServer, mr verbs.MR)
		answers   []string
		landed    bool // the payload is in the MR afterwards
		state     verbs.QPState
	}{
		{name: "the application reads the MR meanwhile", meanwhile: readsPromptly,
			answers: []string{"ACKNOWLEDGE psn+63 syn 0x1f"}, landed: true, state: verbs.QPSRTS},
		{name: "the MR is deregistered meanwhile", meanwhile: func(t *testing.T, rs *rawServer, mr verbs.MR) {
			must(t, mr.Dereg())
			rs.srv.mrs = rs.srv.mrs[:len(rs.srv.mrs)-1] // teardown must not deregister it again
		}, answers: []string{"ACKNOWLEDGE psn+0 syn 0x62"}, state: verbs.QPSErr},
		{name: "the QP goes to ERR meanwhile", meanwhile: func(t *testing.T, rs *rawServer, _ verbs.MR) {
			must(t, rs.srv.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}, verbs.QPAttrState))
		}, landed: true, state: verbs.QPSErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := newRawServer(t)
			defer rs.finish(t)
			mr := rs.srv.regMR(t, 64<<10, verbs.AccessLocalWrite|verbs.AccessRemoteWrite)
			data := bytes.Repeat([]byte("rdmatour"), 8<<10)
			pmtu := rs.srv.qp.(*qp).pmtu
			r := msgRun{write: true, destQP: rs.peer.srvQPN, firstPSN: rs.peer.psn, length: len(data), pmtu: pmtu,
				npkts: len(data) / pmtu, to: len(data) / pmtu, remoteAddr: mr.Addr(), rkey: mr.RKey()}
			stream := encodeWrite(&r, data, true)
			half := len(stream) / 2
			rs.peer.write(t, stream[:half])
			time.Sleep(50 * time.Millisecond) // the reader is waiting for the rest
			tc.meanwhile(t, rs, mr)
			rs.peer.write(t, stream[half:])
			got, _, _ := rs.peer.readAll(300 * time.Millisecond)
			var answers []string
			for _, pk := range got {
				answers = append(answers, fmt.Sprintf("%s psn%+d syn 0x%02x", verbs.OpcodeName(pk.Opcode), psnDiff(pk.PSN, rawPSN), pk.AETH.Syndrome))
			}
			if !reflect.DeepEqual(answers, tc.answers) {
				t.Errorf("answers %q, want %q", answers, tc.answers)
			}
			if q := rs.srv.qp.(*qp); q.stateNow() != tc.state {
				t.Errorf("QP in %s, want %s", q.stateNow().CName(), tc.state.CName())
			}
			if tc.landed {
				mem, err := mr.Read(0, len(data))
				must(t, err)
				if !bytes.Equal(mem, data) {
					t.Errorf("the MR holds %q..., want the payload", mem[:16])
				}
			}
		})
	}
}

// readsPromptly reads the MR the reader is writing into: the reader must
// not hold it while it waits for the peer.
func readsPromptly(t *testing.T, _ *rawServer, mr verbs.MR) {
	done := make(chan error, 1)
	go func() {
		_, err := mr.Read(0, mr.Len())
		done <- err
	}()
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(2 * time.Second):
		t.Fatal("reading the MR waited for the peer")
	}
}

func (q *qp) stateNow() verbs.QPState {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.state
}
