package sim

import (
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// A duplicate request (a PSN already executed) is acknowledged again,
// even without AckReq, and not executed again; the trace shows the
// duplicate arriving and the repeated ACK leaving.
func TestDuplicateRequestAckedAgain(t *testing.T) {
	rs := newRawServer(t)
	defer rs.finish(t)
	rp := rs.peer
	write := func(data string, ackReq bool) packet {
		return packet{Opcode: verbs.OpRDMAWriteOnly, AckReq: ackReq, HasRETH: true,
			RETH: verbs.RETH{VA: rs.target.Addr(), RKey: rs.target.RKey(), DMALen: uint32(len(data))}, Payload: []byte(data)}
	}
	rp.write(t, rp.frame(rp.next(write("first!!!", true))))
	for _, dup := range []packet{write("replay!!", true), write("replay2!", false)} {
		got, _, _ := rp.readAll(300 * time.Millisecond)
		if len(got) != 1 || got[0].AETH.Syndrome != verbs.SyndromeACK || got[0].PSN != rawPSN {
			t.Fatalf("answers %+v, want one ACK for PSN %#x", got, rawPSN)
		}
		dup.DestQP, dup.PSN = rp.srvQPN, rawPSN
		rp.write(t, rp.frame(dup))
	}
	got, _, _ := rp.readAll(300 * time.Millisecond)
	if len(got) != 1 || got[0].AETH.Syndrome != verbs.SyndromeACK || got[0].PSN != rawPSN {
		t.Fatalf("answers %+v, want the ACK for PSN %#x repeated", got, rawPSN)
	}
	if b, _ := rs.target.Read(0, 8); string(b) != "first!!!" {
		t.Errorf("target holds %q: a duplicate was executed again", b)
	}
	c, _ := rs.srv.id.Device().Counters(1)
	if c["duplicate_request"] != 2 {
		t.Errorf("duplicate_request = %d, want 2", c["duplicate_request"])
	}
	var in, out int
	for _, p := range rs.srv.id.Device().(verbs.PacketTracer).Packets(0) {
		switch {
		case !p.Outbound && p.PSN == rawPSN && p.Opcode == verbs.OpRDMAWriteOnly:
			in++
		case p.Outbound && p.Opcode == verbs.OpAcknowledge && p.PSN == rawPSN:
			out++
		}
	}
	if in != 3 || out != 3 {
		t.Errorf("trace: %d WRITEs in and %d ACKs out for PSN %#x, want 3 and 3", in, out, rawPSN)
	}
}

// A request ahead of the expected PSN: the trace shows the PSN sequence
// error NAK leaving, with the expected PSN, and out_of_seq_request counts it.
func TestSequenceNAKInTrace(t *testing.T) {
	rs := newRawServer(t)
	defer rs.finish(t)
	rp := rs.peer
	rp.psn = psnAdd(rawPSN, 5)
	rp.write(t, rp.frame(rp.next(packet{Opcode: verbs.OpSendOnly, AckReq: true, Payload: []byte("hi")})))
	got, _, _ := rp.readAll(300 * time.Millisecond)
	if len(got) != 1 || got[0].AETH.Syndrome != verbs.SyndromeNAKPSNSeqErr || got[0].PSN != rawPSN {
		t.Fatalf("answers %+v, want a PSN sequence error NAK for PSN %#x", got, rawPSN)
	}
	var traced bool
	for _, p := range rs.srv.id.Device().(verbs.PacketTracer).Packets(0) {
		if p.Outbound && p.AETH != nil && p.AETH.Syndrome == verbs.SyndromeNAKPSNSeqErr && p.PSN == rawPSN {
			traced = true
		}
	}
	if !traced {
		t.Error("the sequence NAK is not in the trace")
	}
	if c, _ := rs.srv.id.Device().Counters(1); c["out_of_seq_request"] != 1 {
		t.Errorf("out_of_seq_request = %d, want 1", c["out_of_seq_request"])
	}
	if wcs, _ := rs.srv.cq.Poll(1); len(wcs) != 0 {
		t.Errorf("the out-of-sequence SEND completed: %+v", wcs)
	}
}

// The requester's side: a PSN sequence error NAK makes it resend from the
// NAK's PSN (counting rcvd_seq_err) while retry_cnt allows, and fail with
// transport retry counter exceeded once it does not. A second NAK before
// any ACK starts no second retry (rxe's comp.started_retry) and, naming
// the same PSN, is not counted (check_ack counts only a NAK past comp.psn).
func TestRequesterRetriesOnSequenceNAK(t *testing.T) {
	for _, tt := range []struct {
		name   string
		retry  uint8
		naks   int
		status verbs.WCStatus
	}{
		{"retry_count 2, one NAK: resent, then acked", 2, 1, verbs.WCSuccess},
		{"retry_count 2, two NAKs before an ACK: one resend", 2, 2, verbs.WCSuccess},
		{"retry_count 0: the first NAK ends it", 0, 1, verbs.WCRetryExcErr},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRawServerRetry(t, tt.retry)
			defer rs.finish(t)
			rp := rs.peer
			must(t, rs.srv.qp.PostSend(verbs.SendWR{WRID: 9, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(rs.target, 0, 16)}))
			nak := rp.frame(packet{Opcode: verbs.OpAcknowledge, DestQP: rp.srvQPN, PSN: rp.srvPSN,
				HasAETH: true, AETH: verbs.AETH{Syndrome: verbs.SyndromeNAKPSNSeqErr}})
			got, _, _ := rp.readAll(300 * time.Millisecond)
			if len(got) != 1 || got[0].Opcode != verbs.OpSendOnly || got[0].PSN != rp.srvPSN {
				t.Fatalf("got %+v, want the SEND at PSN %#x", got, rp.srvPSN)
			}
			for range tt.naks {
				rp.write(t, nak)
			}
			got, _, _ = rp.readAll(300 * time.Millisecond)
			if tt.status == verbs.WCSuccess {
				if len(got) != 1 || got[0].PSN != rp.srvPSN {
					t.Fatalf("after %d NAKs: %+v, want one resend of PSN %#x", tt.naks, got, rp.srvPSN)
				}
				rp.write(t, rp.frame(packet{Opcode: verbs.OpAcknowledge, DestQP: rp.srvQPN, PSN: rp.srvPSN,
					HasAETH: true, AETH: verbs.AETH{Syndrome: verbs.SyndromeACK, MSN: 1}}))
			} else if len(got) != 0 {
				t.Errorf("resent after the retries ran out: %+v", got)
			}
			wantStatus(t, pollN(t, rs.srv.cq, 1)[0], 9, tt.status)
			if c, _ := rs.srv.id.Device().Counters(1); c["rcvd_seq_err"] != 1 {
				t.Errorf("rcvd_seq_err = %d, want 1", c["rcvd_seq_err"])
			}
		})
	}
}
