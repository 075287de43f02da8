package sim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

const rwAccess = verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead

func TestSendRecv(t *testing.T) {
	srv, cli := connectPair(t, pairCfg{})
	rbuf := srv.regMR(t, 128, verbs.AccessLocalWrite)
	sbuf := cli.regMR(t, 128, 0)
	must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 7, SGList: sge(rbuf, 0, 128)}))
	msg := []byte("RDMA_WRITE_DONE")
	must(t, sbuf.Write(0, msg))
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 9, Opcode: verbs.WRSend, SGList: sge(sbuf, 0, len(msg)), Flags: verbs.SendSignaled}))
	wc := pollN(t, cli.cq, 1)[0]
	wantStatus(t, wc, 9, verbs.WCSuccess)
	if wc.Opcode != verbs.WCSend || wc.QPNum != cli.qp.Num() {
		t.Fatalf("requester wc %+v", wc)
	}
	rwc := pollN(t, srv.cq, 1)[0]
	wantStatus(t, rwc, 7, verbs.WCSuccess)
	if rwc.Opcode != verbs.WCRecv || rwc.ByteLen != uint32(len(msg)) || rwc.HasImm || rwc.SrcQP != cli.qp.Num() {
		t.Fatalf("responder wc %+v", rwc)
	}
	got, _ := rbuf.Read(0, len(msg))
	if !bytes.Equal(got, msg) {
		t.Fatalf("received %q", got)
	}
	// The wire shows SEND_ONLY with AckReq and the ACK.
	pk := cli.id.Device().(verbs.PacketTracer).Packets(0)
	if len(pk) != 2 || pk[0].Opcode != verbs.OpSendOnly || !pk[0].Outbound || !pk[0].AckReq ||
		pk[0].DestQP != srv.qp.Num() || pk[0].PayloadLen != len(msg) ||
		pk[1].Opcode != verbs.OpAcknowledge || pk[1].AETH == nil || pk[1].AETH.Syndrome != verbs.SyndromeACK || pk[1].AETH.MSN != 1 {
		for _, p := range pk {
			t.Log(p.Summary())
		}
		t.Fatal("unexpected packet trace")
	}
	c, _ := cli.id.Device().Counters(1)
	if c["sent_pkts"] != 1 || c["rcvd_pkts"] != 1 || c["rdma_sends"] != 1 {
		t.Fatalf("counters %v", c)
	}
}

func TestOperations(t *testing.T) {
	pattern := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + i>>12)
		}
		return b
	}
	cases := []struct {
		name    string
		op      verbs.WROpcode
		n       int
		imm     uint32
		recv    bool           // responder posts a RECV and gets a completion
		wantOp  verbs.WCOpcode // responder completion opcode
		opcodes []uint8        // first outbound opcodes
	}{
		{"write", verbs.WRRDMAWrite, 100, 0, false, 0, []uint8{verbs.OpRDMAWriteOnly}},
		{"write-0", verbs.WRRDMAWrite, 0, 0, false, 0, []uint8{verbs.OpRDMAWriteOnly}},
		{"write-multi", verbs.WRRDMAWrite, 3*activeMTU + 5, 0, false, 0, []uint8{verbs.OpRDMAWriteFirst, verbs.OpRDMAWriteMiddle, verbs.OpRDMAWriteMiddle, verbs.OpRDMAWriteLast}},
		{"write-imm", verbs.WRRDMAWriteWithImm, 64, 0xdeadbeef, true, verbs.WCRecvRDMAWithImm, []uint8{verbs.OpRDMAWriteOnlyWithImm}},
		{"write-imm-multi", verbs.WRRDMAWriteWithImm, 2 * activeMTU, 42, true, verbs.WCRecvRDMAWithImm, []uint8{verbs.OpRDMAWriteFirst, verbs.OpRDMAWriteLastWithImm}},
		{"send-multi", verbs.WRSend, 2*activeMTU + 1, 0, true, verbs.WCRecv, []uint8{verbs.OpSendFirst, verbs.OpSendMiddle, verbs.OpSendLast}},
		{"send-imm", verbs.WRSendWithImm, 10, 5, true, verbs.WCRecv, []uint8{verbs.OpSendOnlyWithImm}},
		{"read", verbs.WRRDMARead, 100, 0, false, 0, []uint8{verbs.OpRDMAReadRequest}},
		{"read-multi", verbs.WRRDMARead, 2*activeMTU + 3, 0, false, 0, []uint8{verbs.OpRDMAReadRequest}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{})
			const size = 5 * activeMTU
			remote := srv.regMR(t, size, rwAccess)
			local := cli.regMR(t, size, verbs.AccessLocalWrite)
			data := pattern(tc.n)
			if tc.op == verbs.WRRDMARead {
				must(t, remote.Write(0, data))
			} else {
				must(t, local.Write(0, data))
			}
			if tc.recv {
				must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 1, SGList: sge(remote, 0, size)}))
			}
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: tc.op, SGList: sge(local, 0, tc.n),
				Flags: verbs.SendSignaled, RemoteAddr: remote.Addr(), RKey: remote.RKey(), ImmData: tc.imm}))
			wc := pollN(t, cli.cq, 1)[0]
			wantStatus(t, wc, 2, verbs.WCSuccess)
			if wc.Opcode != tc.op.CompletionOpcode() || wc.ByteLen != uint32(tc.n) {
				t.Fatalf("requester wc %+v", wc)
			}
			if tc.recv {
				rwc := pollN(t, srv.cq, 1)[0]
				wantStatus(t, rwc, 1, verbs.WCSuccess)
				hasImm := tc.op == verbs.WRRDMAWriteWithImm || tc.op == verbs.WRSendWithImm
				if rwc.Opcode != tc.wantOp || rwc.ByteLen != uint32(tc.n) || rwc.HasImm != hasImm || rwc.ImmData != tc.imm {
					t.Fatalf("responder wc %+v", rwc)
				}
			} else {
				noMore(t, srv.cq)
			}
			var got []byte
			if tc.op == verbs.WRRDMARead {
				got, _ = local.Read(0, tc.n)
			} else {
				got, _ = remote.Read(0, tc.n)
			}
			if !bytes.Equal(got, data) {
				t.Fatal("data mismatch")
			}
			var ops []uint8
			for _, p := range cli.p.dev.Packets(0) {
				if p.Outbound {
					ops = append(ops, p.Opcode)
				}
			}
			if !bytes.Equal(ops, tc.opcodes) {
				t.Fatalf("outbound opcodes %x, want %x", ops, tc.opcodes)
			}
			if st := qpState(t, cli.qp); st != verbs.QPSRTS {
				t.Fatalf("qp state %s", st)
			}
		})
	}
}

func TestRemoteAccessErrors(t *testing.T) {
	cases := []struct {
		name   string
		access verbs.Access
		op     verbs.WROpcode
		addr   func(mr verbs.MR) uint64
		rkey   func(mr verbs.MR) uint32
		n      int
	}{
		{"bad rkey", rwAccess, verbs.WRRDMAWrite, verbs.MR.Addr, func(m verbs.MR) uint32 { return m.RKey() ^ 0x1 }, 16},
		{"past the end", rwAccess, verbs.WRRDMAWrite, func(m verbs.MR) uint64 { return m.Addr() + 4090 }, verbs.MR.RKey, 16},
		{"address truncated to 32 bits", rwAccess, verbs.WRRDMAWrite, func(m verbs.MR) uint64 { return m.Addr() & 0xffffffff }, verbs.MR.RKey, 16},
		{"MR without REMOTE_WRITE", verbs.AccessLocalWrite | verbs.AccessRemoteRead, verbs.WRRDMAWrite, verbs.MR.Addr, verbs.MR.RKey, 16},
		{"READ without REMOTE_READ", verbs.AccessLocalWrite | verbs.AccessRemoteWrite, verbs.WRRDMARead, verbs.MR.Addr, verbs.MR.RKey, 16},
		{"READ past the end", rwAccess, verbs.WRRDMARead, verbs.MR.Addr, verbs.MR.RKey, 4097},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{})
			remote := srv.regMR(t, 4096, tc.access)
			rbuf := srv.regMR(t, 64, verbs.AccessLocalWrite)
			local := cli.regMR(t, 8192, verbs.AccessLocalWrite)
			must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 100, SGList: sge(rbuf, 0, 64)}))
			// The bad WR, unsignaled (errors complete anyway), then one behind it.
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: tc.op, SGList: sge(local, 0, tc.n),
				RemoteAddr: tc.addr(remote), RKey: tc.rkey(remote)}))
			wc := pollN(t, cli.cq, 1)[0]
			wantStatus(t, wc, 1, verbs.WCRemAccessErr)
			if wc.Status.String() != "remote access error" {
				t.Fatal(wc.Status.String())
			}
			if st := qpState(t, cli.qp); st != verbs.QPSErr {
				t.Fatalf("requester QP %s", st)
			}
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, SGList: sge(local, 0, 4), Flags: verbs.SendSignaled}))
			wantStatus(t, pollN(t, cli.cq, 1)[0], 2, verbs.WCWRFlushErr)
			// The responder went to ERR as well (rxe class C) and flushed its RECV.
			wantStatus(t, pollN(t, srv.cq, 1)[0], 100, verbs.WCWRFlushErr)
			if st := qpState(t, srv.qp); st != verbs.QPSErr {
				t.Fatalf("responder QP %s", st)
			}
			got, _ := remote.Read(0, 4096)
			if !bytes.Equal(got, make([]byte, 4096)) {
				t.Fatal("the rejected access wrote memory")
			}
			var nak bool
			for _, p := range cli.p.dev.Packets(0) {
				if p.AETH != nil && p.AETH.Syndrome == verbs.SyndromeNAKRemAccess {
					nak = true
				}
			}
			if !nak {
				t.Fatal("no NAK remote access error on the wire")
			}
		})
	}
}

func TestFlushBehindError(t *testing.T) {
	srv, cli := connectPair(t, pairCfg{})
	remote := srv.regMR(t, 4096, rwAccess)
	local := cli.regMR(t, 4096, verbs.AccessLocalWrite)
	bad := verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: sge(local, 0, 8), RemoteAddr: remote.Addr(), RKey: 0xbad00}
	must(t, cli.qp.PostSend(bad))
	for i := uint64(2); i <= 4; i++ {
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: i, Opcode: verbs.WRRDMAWrite, SGList: sge(local, 0, 8),
			RemoteAddr: remote.Addr(), RKey: remote.RKey(), Flags: verbs.SendSignaled}))
	}
	wcs := pollN(t, cli.cq, 4)
	wantStatus(t, wcs[0], 1, verbs.WCRemAccessErr)
	for i, wc := range wcs[1:] {
		wantStatus(t, wc, uint64(i+2), verbs.WCWRFlushErr)
		if wc.Status.String() != "Work Request Flushed Error" {
			t.Fatal(wc.Status.String())
		}
	}
	noMore(t, cli.cq)
}

func TestRNR(t *testing.T) {
	t.Run("retry 0 exhausted", func(t *testing.T) {
		srv, cli := connectPair(t, pairCfg{connect: verbs.ConnParam{RNRRetryCount: 0}, accept: verbs.ConnParam{RNRRetryCount: 7}})
		local := cli.regMR(t, 64, 0)
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, SGList: sge(local, 0, 16), Flags: verbs.SendSignaled}))
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, SGList: sge(local, 0, 16), Flags: verbs.SendSignaled}))
		wcs := pollN(t, cli.cq, 2)
		wantStatus(t, wcs[0], 1, verbs.WCRNRRetryExcErr)
		if wcs[0].Status.String() != "RNR retry counter exceeded" {
			t.Fatal(wcs[0].Status.String())
		}
		wantStatus(t, wcs[1], 2, verbs.WCWRFlushErr)
		if st := qpState(t, cli.qp); st != verbs.QPSErr {
			t.Fatalf("requester %s", st)
		}
		// The responder is fine: an RNR NAK is not an error for it.
		if st := qpState(t, srv.qp); st != verbs.QPSRTS {
			t.Fatalf("responder %s", st)
		}
		cc, _ := cli.id.Device().Counters(1)
		sc, _ := srv.id.Device().Counters(1)
		if cc["rcvd_rnr_err"] != 1 || cc["retry_rnr_exceeded_err"] != 1 || sc["send_rnr_err"] != 1 {
			t.Fatalf("client %v server %v", cc, sc)
		}
		var rnr bool
		for _, p := range srv.p.dev.Packets(0) {
			if p.AETH != nil && p.AETH.Syndrome == verbs.SyndromeRNRNAKBase|12 {
				rnr = true
			}
		}
		if !rnr {
			t.Fatal("no RNR NAK (timer 12) on the wire")
		}
	})
	t.Run("retry 7 succeeds once RECV is posted", func(t *testing.T) {
		srv, cli := connectPair(t, pairCfg{connect: verbs.ConnParam{RNRRetryCount: 7}})
		local := cli.regMR(t, 64, 0)
		rbuf := srv.regMR(t, 64, verbs.AccessLocalWrite)
		must(t, local.Write(0, []byte("late")))
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, SGList: sge(local, 0, 4), Flags: verbs.SendSignaled}))
		time.Sleep(30 * time.Millisecond)
		if a, _ := cli.qp.Query(); a.OutstandingSQ != 1 {
			t.Fatalf("outstanding %d", a.OutstandingSQ)
		}
		must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 5, SGList: sge(rbuf, 0, 64)}))
		wantStatus(t, pollN(t, cli.cq, 1)[0], 1, verbs.WCSuccess)
		rwc := pollN(t, srv.cq, 1)[0]
		wantStatus(t, rwc, 5, verbs.WCSuccess)
		got, _ := rbuf.Read(0, 4)
		if string(got) != "late" || rwc.ByteLen != 4 {
			t.Fatalf("%q %+v", got, rwc)
		}
		cc, _ := cli.id.Device().Counters(1)
		if cc["rcvd_rnr_err"] < 2 {
			t.Fatalf("expected several RNR NAKs, counters %v", cc)
		}
	})
	t.Run("write with imm waits for a RECV", func(t *testing.T) {
		srv, cli := connectPair(t, pairCfg{connect: verbs.ConnParam{RNRRetryCount: 7}})
		local := cli.regMR(t, 3*activeMTU, 0)
		remote := srv.regMR(t, 3*activeMTU, rwAccess)
		must(t, local.Write(3*activeMTU-3, []byte("end")))
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWriteWithImm, SGList: sge(local, 0, 3*activeMTU),
			RemoteAddr: remote.Addr(), RKey: remote.RKey(), ImmData: 77, Flags: verbs.SendSignaled}))
		time.Sleep(10 * time.Millisecond)
		must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 5}))
		wantStatus(t, pollN(t, cli.cq, 1)[0], 1, verbs.WCSuccess)
		rwc := pollN(t, srv.cq, 1)[0]
		if rwc.Opcode != verbs.WCRecvRDMAWithImm || rwc.ImmData != 77 || rwc.ByteLen != 3*activeMTU {
			t.Fatalf("%+v", rwc)
		}
		got, _ := remote.Read(3*activeMTU-3, 3)
		if string(got) != "end" {
			t.Fatalf("%q", got)
		}
	})
}

func TestLocalErrors(t *testing.T) {
	t.Run("lkey of no MR", func(t *testing.T) {
		srv, cli := connectPair(t, pairCfg{})
		remote := srv.regMR(t, 4096, rwAccess)
		local := cli.regMR(t, 4096, 0) // no LOCAL_WRITE: fine for WRITE, not for READ
		cases := []verbs.SendWR{
			{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{{Addr: local.Addr(), Length: 8, LKey: local.LKey() + 1}}, RemoteAddr: remote.Addr(), RKey: remote.RKey()},
		}
		must(t, cli.qp.PostSend(cases[0]))
		wc := pollN(t, cli.cq, 1)[0]
		// An lkey no MR has: local QP operation error on rxe, not local
		// protection error (TestRxeLocalSGEErrors).
		wantStatus(t, wc, 1, verbs.WCLocQPOpErr)
		if wc.Status.String() != "local QP operation error" || qpState(t, cli.qp) != verbs.QPSErr {
			t.Fatal("want local QP operation error and ERR")
		}
	})
	for _, tc := range []struct {
		name string
		wr   func(local, remote verbs.MR) verbs.SendWR
	}{
		{"READ into MR without LOCAL_WRITE", func(l, r verbs.MR) verbs.SendWR {
			return verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMARead, SGList: sge(l, 0, 8), RemoteAddr: r.Addr(), RKey: r.RKey()}
		}},
		{"SGE past the end of the MR", func(l, r verbs.MR) verbs.SendWR {
			return verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: sge(l, 4000, 200), RemoteAddr: r.Addr(), RKey: r.RKey()}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{})
			remote := srv.regMR(t, 4096, rwAccess)
			local := cli.regMR(t, 4096, 0)
			must(t, cli.qp.PostSend(tc.wr(local, remote)))
			wantStatus(t, pollN(t, cli.cq, 1)[0], 1, verbs.WCLocProtErr)
		})
	}
	// Hardware says local length error / remote invalid request; rxe on
	// 6.1 local QP operation error / remote operation error
	// (TestRxeRecvTooSmall).
	t.Run("RECV too small", func(t *testing.T) {
		srv, cli := connectPair(t, pairCfg{})
		rbuf := srv.regMR(t, 16, verbs.AccessLocalWrite)
		local := cli.regMR(t, 100, 0)
		must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 5, SGList: sge(rbuf, 0, 16)}))
		must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 6, SGList: sge(rbuf, 0, 16)}))
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, SGList: sge(local, 0, 100)}))
		wc := pollN(t, cli.cq, 1)[0]
		wantStatus(t, wc, 1, verbs.WCRemOpErr)
		if wc.Status.String() != "remote operation error" {
			t.Fatal(wc.Status)
		}
		rwcs := pollN(t, srv.cq, 2)
		wantStatus(t, rwcs[0], 5, verbs.WCLocQPOpErr)
		if rwcs[0].Status.String() != "local QP operation error" {
			t.Fatal(rwcs[0].Status)
		}
		wantStatus(t, rwcs[1], 6, verbs.WCWRFlushErr)
	})
}

func TestPostStates(t *testing.T) {
	p := New(Options{})
	ch, _ := p.CreateEventChannel()
	id, _ := ch.CreateID(verbs.PSTCP)
	must(t, id.ResolveAddr(netip.AddrPort{}, netip.AddrPortFrom(loopback, 1), time.Second))
	waitEvent(t, ch, verbs.EventAddrResolved)
	s := &side{p: p, ch: ch, id: id}
	s.setupVerbs(t, pairCfg{cqe: 4, caps: verbs.QPCap{MaxSendWR: 2, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	defer teardown(t, s)
	mr := s.regMR(t, 64, verbs.AccessLocalWrite)
	if st := qpState(t, s.qp); st != verbs.QPSInit {
		t.Fatalf("state after rdma_create_qp: %s", st)
	}
	err := s.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, SGList: sge(mr, 0, 8)})
	wantErrno(t, err, "ibv_post_send", syscall.EINVAL)
	if !strings.Contains(err.Error(), "IBV_QPS_INIT") {
		t.Fatalf("detail should name the state: %v", err)
	}
	// RECVs may be posted in INIT.
	must(t, s.qp.PostRecv(verbs.RecvWR{WRID: 2, SGList: sge(mr, 0, 8)}))
	wantErrno(t, s.qp.PostRecv(verbs.RecvWR{WRID: 3, SGList: sge(mr, 0, 8)}), "ibv_post_recv", syscall.ENOMEM)
	wantErrno(t, s.qp.PostRecv(verbs.RecvWR{WRID: 3, SGList: append(sge(mr, 0, 8), sge(mr, 8, 8)...)}), "ibv_post_recv", syscall.EINVAL)
	// In ERR everything is accepted and flushed, the SEND refused in INIT
	// too: like rxe, the provider had queued it anyway.
	s.qp.(*qp).toErr()
	flushed := pollN(t, s.cq, 2)
	wantStatus(t, flushed[0], 2, verbs.WCWRFlushErr)
	wantStatus(t, flushed[1], 1, verbs.WCWRFlushErr)
	// A SEND posted in ERR flushes at once; a RECV waits for the responder
	// to run again, as on rxe (TestRecvPostedInErr).
	must(t, s.qp.PostSend(verbs.SendWR{WRID: 4, Opcode: verbs.WRSend, SGList: sge(mr, 0, 8)}))
	must(t, s.qp.PostRecv(verbs.RecvWR{WRID: 5, SGList: sge(mr, 0, 8)}))
	wantStatus(t, pollN(t, s.cq, 1)[0], 4, verbs.WCWRFlushErr)
	noMore(t, s.cq)
	s.qp.(*qp).toErr()
	wantStatus(t, pollN(t, s.cq, 1)[0], 5, verbs.WCWRFlushErr)
}

func TestSendQueueLimits(t *testing.T) {
	srv, cli := connectPair(t, pairCfg{caps: verbs.QPCap{MaxSendWR: 2, MaxRecvWR: 2, MaxSendSGE: 1, MaxRecvSGE: 1}, connect: verbs.ConnParam{RNRRetryCount: 7}})
	_ = srv
	local := cli.regMR(t, 64, 0)
	wantErrno(t, cli.qp.PostSend(verbs.SendWR{Opcode: verbs.WRSend, SGList: append(sge(local, 0, 1), sge(local, 1, 1)...)}), "ibv_post_send", syscall.EINVAL)
	// No RECV at the server: the SENDs stay outstanding (RNR, retried forever).
	// max_send_wr 2 holds 3, as on rxe (rxe_queue_init; TestRxeQueueCaps).
	for i := range 3 {
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: uint64(i + 1), Opcode: verbs.WRSend, SGList: sge(local, 0, 4)}))
	}
	wantErrno(t, cli.qp.PostSend(verbs.SendWR{WRID: 4, Opcode: verbs.WRSend, SGList: sge(local, 0, 4)}), "ibv_post_send", syscall.ENOMEM)
}

func TestPrivateData(t *testing.T) {
	// Limits: 57 bytes on connect and 197 on accept are EINVAL.
	p := New(Options{})
	ch, _ := p.CreateEventChannel()
	id, _ := ch.CreateID(verbs.PSTCP)
	wantErrno(t, id.Connect(verbs.ConnParam{PrivateData: make([]byte, 57)}), "rdma_connect", syscall.EINVAL)
	wantErrno(t, id.Accept(verbs.ConnParam{PrivateData: make([]byte, 197)}), "rdma_accept", syscall.EINVAL)
	wantErrno(t, id.Reject(make([]byte, 149)), "rdma_reject", syscall.EINVAL)
	must(t, id.Destroy())
	must(t, ch.Destroy())
	teardown(t, &side{p: p})

	// Padding on receipt: to 56 at the listener, 196 at the client.
	info := make([]byte, 32)
	binary.BigEndian.PutUint64(info, 0x7f0012345000)
	srv, cli := connectPair(t, pairCfg{
		connect: verbs.ConnParam{PrivateData: []byte("hello"), ResponderResources: 1, InitiatorDepth: 2, RNRRetryCount: 3},
		accept:  verbs.ConnParam{PrivateData: info, ResponderResources: 1, InitiatorDepth: 1},
	})
	req := srv.last
	if len(req.PrivateData) != 56 || string(req.PrivateData[:5]) != "hello" || !bytes.Equal(req.PrivateData[5:], make([]byte, 51)) {
		t.Fatalf("REQ private data %q", req.PrivateData)
	}
	if req.ListenID != srv.lid || req.QPNum != cli.qp.Num() || req.RNRRetryCount != 3 ||
		req.ResponderResources != 2 || req.InitiatorDepth != 1 {
		t.Fatalf("CONNECT_REQUEST %+v", req)
	}
	est := cli.last
	if len(est.PrivateData) != 196 || !bytes.Equal(est.PrivateData[:32], info) || est.QPNum != srv.qp.Num() {
		t.Fatalf("ESTABLISHED %+v", est)
	}
	a, _ := cli.qp.Query()
	if a.State != verbs.QPSRTS || a.DestQPNum != srv.qp.Num() || a.RNRRetry != 3 || a.PathMTU != 1024 ||
		a.AccessFlags != cmAccess(1) || a.MinRNRTimer != 12 {
		t.Fatalf("client QP %+v", a)
	}
	sa, _ := srv.qp.Query()
	if sa.RQPSN != a.SQPSN || sa.SQPSN != a.RQPSN {
		t.Fatalf("PSNs do not match: server %+v client %+v", sa, a)
	}
	if srv.id.Device() == nil || srv.id.PeerAddr().Addr() != loopback || cli.id.PeerAddr() != srv.lid.LocalAddr() {
		t.Fatal("addresses")
	}
}

func TestReject(t *testing.T) {
	srv := &side{p: New(Options{})}
	cli := &side{p: New(Options{})}
	srv.ch, _ = srv.p.CreateEventChannel()
	srv.lid, _ = srv.ch.CreateID(verbs.PSTCP)
	must(t, srv.lid.BindAddr(netip.AddrPortFrom(netip.IPv4Unspecified(), 0)))
	if srv.lid.Device() != nil {
		t.Fatal("wildcard-bound id must have no device")
	}
	must(t, srv.lid.Listen(1))
	cli.ch, _ = cli.p.CreateEventChannel()
	cli.id, _ = cli.ch.CreateID(verbs.PSTCP)
	must(t, cli.id.ResolveAddr(netip.AddrPort{}, netip.AddrPortFrom(loopback, srv.lid.LocalAddr().Port()), time.Second))
	waitEvent(t, cli.ch, verbs.EventAddrResolved)
	must(t, cli.id.ResolveRoute(time.Second))
	waitEvent(t, cli.ch, verbs.EventRouteResolved)
	must(t, cli.id.Connect(verbs.ConnParam{}))
	ev := waitEvent(t, srv.ch, verbs.EventConnectRequest)
	if ev.ID.Device() == nil {
		t.Fatal("child id must have the device")
	}
	must(t, ev.ID.Reject([]byte("go away")))
	rej := waitEvent(t, cli.ch, verbs.EventRejected)
	if rej.Status != 28 || len(rej.PrivateData) != 148 || string(rej.PrivateData[:7]) != "go away" {
		t.Fatalf("%+v", rej)
	}
	must(t, ev.ID.Destroy())
	teardown(t, srv, cli)
}

func TestPortInUse(t *testing.T) {
	p := New(Options{})
	ch, _ := p.CreateEventChannel()
	a, _ := ch.CreateID(verbs.PSTCP)
	b, _ := ch.CreateID(verbs.PSTCP)
	must(t, a.BindAddr(netip.AddrPortFrom(loopback, 0)))
	if a.Device() == nil || a.LocalAddr().Port() == 0 {
		t.Fatal("bound to a device address: device and port expected")
	}
	wantErrno(t, b.BindAddr(a.LocalAddr()), "rdma_bind_addr", syscall.EADDRINUSE)
	wantErrno(t, b.BindAddr(netip.MustParseAddrPort("192.0.2.1:7471")), "rdma_bind_addr", syscall.EADDRNOTAVAIL)
	must(t, a.Destroy())
	must(t, b.Destroy())
	must(t, ch.Destroy())
	teardown(t, &side{p: p})
}

// clientTo starts a client id connecting to dst and returns its channel.
func clientTo(t *testing.T, p *Provider, dst netip.AddrPort) *side {
	s := &side{p: p}
	s.ch, _ = p.CreateEventChannel()
	s.id, _ = s.ch.CreateID(verbs.PSTCP)
	must(t, s.id.ResolveAddr(netip.AddrPort{}, dst, time.Second))
	waitEvent(t, s.ch, verbs.EventAddrResolved)
	must(t, s.id.ResolveRoute(time.Second))
	waitEvent(t, s.ch, verbs.EventRouteResolved)
	s.setupVerbs(t, pairCfg{cqe: 4, caps: verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	must(t, s.id.Connect(verbs.ConnParam{}))
	return s
}

func TestConnectFailures(t *testing.T) {
	t.Run("nobody listening", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		dst := addrPortOf(ln.Addr())
		ln.Close()
		s := clientTo(t, New(Options{}), dst)
		if ev := waitEvent(t, s.ch, verbs.EventRejected); ev.Status != 8 {
			t.Fatalf("status %d", ev.Status)
		}
		teardown(t, s)
	})
	for _, tc := range []struct {
		name   string
		serve  func(net.Conn)
		want   verbs.CMEventType
		status int
	}{
		{"garbage peer", func(c net.Conn) { c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n")) }, verbs.EventConnectError, -71},
		{"silent peer", func(c net.Conn) {}, verbs.EventUnreachable, -110},
		{"peer closes", func(c net.Conn) { c.Close() }, verbs.EventConnectError, -104},
		{"preamble then junk", func(c net.Conn) { c.Write(append(preamble(), 9, 9, 9, 9, 0, 0, 0, 1, 0)) }, verbs.EventConnectError, -71},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			must(t, err)
			defer ln.Close()
			done := make(chan struct{})
			go func() {
				defer close(done)
				c, err := ln.Accept()
				if err != nil {
					return
				}
				tc.serve(c)
				time.Sleep(500 * time.Millisecond)
				c.Close()
			}()
			s := clientTo(t, New(Options{CMTimeout: 200 * time.Millisecond}), addrPortOf(ln.Addr()))
			if ev := waitEvent(t, s.ch, tc.want); ev.Status != tc.status {
				t.Fatalf("status %d, want %d", ev.Status, tc.status)
			}
			teardown(t, s)
			<-done
		})
	}
}

func TestJunkToListener(t *testing.T) {
	srv := &side{p: New(Options{CMTimeout: 300 * time.Millisecond})}
	srv.ch, _ = srv.p.CreateEventChannel()
	srv.lid, _ = srv.ch.CreateID(verbs.PSTCP)
	must(t, srv.lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
	must(t, srv.lid.Listen(4))
	junk := [][]byte{
		[]byte("GET / HTTP/1.0\r\n\r\n"),
		append(preamble(), 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff), // huge frame
		append(preamble(), 2, 0, 0, 0, 0, 0, 0, 1, 0),          // packet instead of REQ
		append(preamble(), encodeCM(&cmMsg{Type: cmREP})...),   // REP instead of REQ
		preamble(), // then silence
		{},         // connect and close
	}
	for _, j := range junk {
		c, err := net.Dial("tcp", srv.lid.LocalAddr().String())
		must(t, err)
		c.Write(j)
		if len(j) == 0 {
			c.Close()
		} else {
			defer c.Close()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if ev, err := srv.ch.GetEvent(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("junk produced an event: %+v %v", ev, err)
	}
	// The listener still works.
	cli := clientTo(t, New(Options{}), srv.lid.LocalAddr())
	ev := waitEvent(t, srv.ch, verbs.EventConnectRequest)
	srv.id = ev.ID
	srv.setupVerbs(t, pairCfg{cqe: 4, caps: verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	must(t, srv.id.Accept(verbs.ConnParam{}))
	waitEvent(t, cli.ch, verbs.EventEstablished)
	waitEvent(t, srv.ch, verbs.EventEstablished)
	teardown(t, srv, cli)
}

func TestDisconnect(t *testing.T) {
	srv, cli := connectPair(t, pairCfg{noCleanup: true})
	rbuf := srv.regMR(t, 64, verbs.AccessLocalWrite)
	must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 1, SGList: sge(rbuf, 0, 64)}))
	must(t, cli.id.Disconnect())
	if st := qpState(t, cli.qp); st != verbs.QPSErr {
		t.Fatalf("initiator QP %s", st)
	}
	waitEvent(t, srv.ch, verbs.EventDisconnected)
	// The DREQ does not touch the passive side's QP (rdma_cm leaves it to
	// the application): still RTS, its RECV still posted.
	if st := qpState(t, srv.qp); st != verbs.QPSRTS {
		t.Fatalf("passive QP %s after the DREQ, want RTS", st)
	}
	if wcs, _ := srv.cq.Poll(1); len(wcs) != 0 {
		t.Fatalf("passive side got %v before its own rdma_disconnect", wcs)
	}
	must(t, srv.id.Disconnect()) // answers the DREQ: QP to ERR, DREP
	wantStatus(t, pollN(t, srv.cq, 1)[0], 1, verbs.WCWRFlushErr)
	if st := qpState(t, srv.qp); st != verbs.QPSErr {
		t.Fatalf("passive QP %s", st)
	}
	waitEvent(t, cli.ch, verbs.EventDisconnected)
	wantErrno(t, cli.id.Disconnect(), "rdma_disconnect", syscall.EINVAL)
	wantErrno(t, srv.id.Disconnect(), "rdma_disconnect", syscall.EINVAL)
	teardown(t, srv, cli)
}

func TestPeerConnectionLost(t *testing.T) {
	srv, cli := connectPair(t, pairCfg{connect: verbs.ConnParam{RNRRetryCount: 7}, noCleanup: true})
	local := cli.regMR(t, 64, 0)
	// Two SENDs stuck in RNR retry (no RECV at the server), then the
	// server's process "dies": its TCP connection closes under it.
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, SGList: sge(local, 0, 4)}))
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, SGList: sge(local, 0, 4)}))
	time.Sleep(10 * time.Millisecond)
	srv.id.(*cmID).conn.nc.Close()
	waitEvent(t, cli.ch, verbs.EventDisconnected)
	wcs := pollN(t, cli.cq, 2)
	wantStatus(t, wcs[0], 1, verbs.WCRetryExcErr)
	if wcs[0].Status.String() != "transport retry counter exceeded" {
		t.Fatal(wcs[0].Status)
	}
	wantStatus(t, wcs[1], 2, verbs.WCWRFlushErr)
	waitEvent(t, srv.ch, verbs.EventDisconnected)
	teardown(t, srv, cli)
}

// A peer that vanishes while nothing is in flight changes nothing yet (no
// RNIC is told); the next WR is never acknowledged and runs out of
// transport retries, then the QP is in ERR and the rest is flushed.
func TestPeerLostWhileIdle(t *testing.T) {
	srv, cli := connectPair(t, pairCfg{noCleanup: true})
	local := cli.regMR(t, 64, verbs.AccessLocalWrite)
	srv.id.(*cmID).conn.nc.Close()
	waitEvent(t, cli.ch, verbs.EventDisconnected)
	if st := qpState(t, cli.qp); st != verbs.QPSRTS {
		t.Fatalf("QP %s right after the peer vanished, want RTS", st)
	}
	start := time.Now()
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(local, 0, 4)}))
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(local, 0, 4)}))
	wcs := pollN(t, cli.cq, 2)
	wantStatus(t, wcs[0], 1, verbs.WCRetryExcErr)
	wantStatus(t, wcs[1], 2, verbs.WCWRFlushErr)
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("retries ran out after %v; the ACK timeout (code 14) alone is 67 ms", waited)
	}
	if st := qpState(t, cli.qp); st != verbs.QPSErr {
		t.Fatalf("QP %s after the retries ran out, want ERR", st)
	}
	waitEvent(t, srv.ch, verbs.EventDisconnected)
	teardown(t, srv, cli)
}

func TestObjects(t *testing.T) {
	p := New(Options{})
	ch, _ := p.CreateEventChannel()
	id, _ := ch.CreateID(verbs.PSTCP)
	must(t, id.BindAddr(netip.AddrPortFrom(loopback, 0)))
	dev := id.Device()
	info := dev.Info()
	if info.Name != "sim0" || info.Transport != "simulated" || !p.Simulated() || p.Name() != "sim" {
		t.Fatalf("%+v", info)
	}
	port, err := dev.QueryPort(1)
	must(t, err)
	if port.State != verbs.PortActive || port.ActiveMTU != 1024 || port.MaxMTU != 4096 || port.LinkLayer != "Ethernet" {
		t.Fatalf("%+v", port)
	}
	gid, err := dev.QueryGID(1, gidIndexInUse)
	must(t, err)
	if !gid.Is4In6() {
		t.Fatalf("gid %s", gid)
	}
	for _, n := range []int{0, -1, 4097} {
		_, err := dev.CreateCQ(n)
		wantErrno(t, err, "ibv_create_cq", syscall.EINVAL)
	}
	pd, _ := dev.AllocPD()
	for _, tc := range []struct {
		n   int
		acc verbs.Access
	}{{0, verbs.AccessLocalWrite}, {-1, 0}, {64, verbs.AccessRemoteWrite}, {64, verbs.AccessRemoteAtomic}} {
		_, err := pd.RegMR(tc.n, tc.acc)
		wantErrno(t, err, "ibv_reg_mr", syscall.EINVAL)
	}
	m1, _ := pd.RegMR(100, rwAccess)
	m2, _ := pd.RegMR(100, verbs.AccessRemoteRead)
	if m1.Addr() < 1<<32 || m1.Addr()%4096 != 0 || m1.LKey() != m1.RKey() || m1.LKey()>>8 == m2.LKey()>>8 {
		t.Fatalf("addr 0x%x keys 0x%x 0x%x", m1.Addr(), m1.LKey(), m2.LKey())
	}
	if _, err := m1.Read(90, 11); err == nil {
		t.Fatal("read past the end")
	}
	if err := m1.Write(-1, []byte{1}); err == nil {
		t.Fatal("write before the start")
	}
	cq, _ := dev.CreateCQ(8)
	caps := verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}
	for _, bad := range []verbs.QPCap{{MaxSendWR: 0, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1},
		{MaxSendWR: 0x4001, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}, {MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 33, MaxRecvSGE: 1}} { // rxe_param.h: RXE_MAX_QP_WR 0x4000, RXE_MAX_SGE 32
		_, err := id.CreateQP(pd, verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Type: verbs.QPTRC, Cap: bad})
		wantErrno(t, err, "rdma_create_qp", syscall.EINVAL)
	}
	_, err = id.CreateQP(pd, verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Type: verbs.QPTUD, Cap: caps})
	wantErrno(t, err, "rdma_create_qp", syscall.EINVAL)
	q, err := id.CreateQP(pd, verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Type: verbs.QPTRC, Cap: caps})
	must(t, err)
	if q.Num() > 0xFFFFFF || q.Num() < 2 {
		t.Fatalf("qpn %x", q.Num())
	}
	if want := (verbs.ResourceCount{EventChannels: 1, IDs: 1, PDs: 1, CQs: 1, QPs: 1, MRs: 2}); p.Live() != want {
		t.Fatalf("live %+v", p.Live())
	}
	wantErrno(t, cq.Destroy(), "ibv_destroy_cq", syscall.EBUSY)
	wantErrno(t, pd.Dealloc(), "ibv_dealloc_pd", syscall.EBUSY)
	wantErrno(t, ch.Destroy(), "rdma_destroy_event_channel", syscall.EBUSY)
	must(t, id.DestroyQP())
	must(t, cq.Destroy())
	wantErrno(t, pd.Dealloc(), "ibv_dealloc_pd", syscall.EBUSY)
	must(t, m1.Dereg())
	must(t, m2.Dereg())
	must(t, pd.Dealloc())
	must(t, id.Destroy())
	must(t, ch.Destroy())
	teardown(t, &side{p: p})
}

func TestResolveErrors(t *testing.T) {
	p := New(Options{})
	ch, _ := p.CreateEventChannel()
	for _, tc := range []struct {
		src, dst string
		status   int
	}{
		{"", "0.0.0.0:7471", -int(syscall.EADDRNOTAVAIL)},
		{"", "224.0.0.1:7471", -int(syscall.EINVAL)},
		{"192.0.2.1:0", "127.0.0.1:7471", -int(syscall.EADDRNOTAVAIL)},
	} {
		id, _ := ch.CreateID(verbs.PSTCP)
		var src netip.AddrPort
		if tc.src != "" {
			src = netip.MustParseAddrPort(tc.src)
		}
		must(t, id.ResolveAddr(src, netip.MustParseAddrPort(tc.dst), time.Second))
		if ev := waitEvent(t, ch, verbs.EventAddrError); ev.Status != tc.status {
			t.Fatalf("%s: status %d", tc.dst, ev.Status)
		}
		wantErrno(t, id.ResolveRoute(time.Second), "rdma_resolve_route", syscall.EINVAL)
		must(t, id.Destroy())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := ch.GetEvent(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	must(t, ch.Destroy())
	teardown(t, &side{p: p})
}

func TestDestroyListenerWithPendingRequest(t *testing.T) {
	srv := &side{p: New(Options{})}
	srv.ch, _ = srv.p.CreateEventChannel()
	srv.lid, _ = srv.ch.CreateID(verbs.PSTCP)
	must(t, srv.lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
	must(t, srv.lid.Listen(1))
	cli := clientTo(t, New(Options{}), srv.lid.LocalAddr())
	deadline := time.Now().Add(5 * time.Second)
	for srv.p.Live().IDs < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	// The CONNECT_REQUEST is never fetched; tearing down must reclaim the child.
	teardown(t, srv)
	if ev := waitEvent(t, cli.ch, verbs.EventRejected); ev.Status != 28 {
		t.Fatalf("status %d", ev.Status)
	}
	teardown(t, cli)
}
