//go:build linux && cgo

package rdmacore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// READ and the atomics on a real device, and the errors the tour's
// lessons teach. The FACT lines are what the simulated NIC copies
// (verbs/sim's TestReadAtomicErrorsLikeRxe holds the same table).

const allRemote = verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead | verbs.AccessRemoteAtomic

func TestDeviceAtomicAttrs(t *testing.T) {
	p := open(t)
	rdmaAddr(t, p)
	devs := must(p.Devices())(t)
	for _, d := range devs {
		t.Logf("FACT %s: atomic_cap %s max_qp_rd_atom %d max_qp_init_rd_atom %d", d.Name, d.AtomicCap, d.MaxQPRdAtom, d.MaxQPInitRdAtom)
		if d.MaxQPRdAtom <= 0 || d.MaxQPInitRdAtom <= 0 {
			t.Errorf("%s: max_qp_rd_atom %d max_qp_init_rd_atom %d, want > 0", d.Name, d.MaxQPRdAtom, d.MaxQPInitRdAtom)
		}
	}
}

// atomic posts one atomic WR on the client and returns its completion
// and the old value it wrote into the client's buffer (host order).
func (s *side) atomic(t *testing.T, op verbs.WROpcode, raddr uint64, rkey uint32, compareAdd, swap uint64) (verbs.WC, uint64) {
	t.Helper()
	noErr(t, s.data.Write(512, make([]byte, 8)))
	s.post(t, verbs.SendWR{WRID: 7, Opcode: op, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: s.data.Addr() + 512, Length: 8, LKey: s.data.LKey()}},
		RemoteAddr: raddr, RKey: rkey, CompareAdd: compareAdd, Swap: swap})
	wc := waitWC(t, s.cq)
	return wc, binary.LittleEndian.Uint64(must(s.data.Read(512, 8))(t))
}

func TestAtomicsOnRealDevice(t *testing.T) {
	p := open(t)
	o := defaults()
	o.srvAccess = allRemote
	pr := connect(t, p, rdmaAddr(t, p), o)
	cli, srv := &pr.cli, &pr.srv
	a := must(srv.qp.Query())(t)
	t.Logf("FACT server QP access %s max_dest_rd_atomic %d; client max_rd_atomic %d",
		a.AccessFlags, a.MaxDestRdAtom, must(cli.qp.Query())(t).MaxRdAtomic)
	counter := make([]byte, 8)
	binary.LittleEndian.PutUint64(counter, 40)
	noErr(t, srv.data.Write(64, counter))
	steps := []struct {
		op               verbs.WROpcode
		compareAdd, swap uint64
		wantOld, wantNow uint64
	}{
		{verbs.WRAtomicFetchAndAdd, 2, 0, 40, 42},
		{verbs.WRAtomicCmpAndSwp, 42, 7, 42, 7},
		{verbs.WRAtomicCmpAndSwp, 42, 99, 7, 7}, // compare fails: nothing stored
	}
	for _, st := range steps {
		wc, old := cli.atomic(t, st.op, srv.data.Addr()+64, srv.data.RKey(), st.compareAdd, st.swap)
		now := binary.LittleEndian.Uint64(must(srv.data.Read(64, 8))(t))
		t.Logf("FACT %s(%d,%d): wc %s opcode %s byte_len %d old %d counter %d", st.op, st.compareAdd, st.swap, wc.Status, wc.Opcode, wc.ByteLen, old, now)
		if wc.Status != verbs.WCSuccess || wc.Opcode != st.op.CompletionOpcode() || old != st.wantOld || now != st.wantNow {
			t.Errorf("%s: wc %+v old %d counter %d, want old %d counter %d", st.op, wc, old, now, st.wantOld, st.wantNow)
		}
	}
}

// remoteErrorCase is one READ/atomic that the responder refuses (or never
// answers), as rxe does it.
type remoteErrorCase struct {
	name       string
	tweak      func(*opts)
	op         verbs.WROpcode
	offset     uint64 // into the server's data MR
	wantStatus verbs.WCStatus
	wantNoWC   bool          // no completion at all within a few seconds
	wantPost   syscall.Errno // ibv_post_send refuses the WR
	// The server QP's qp_access_flags after rdma_cm set it up.
	wantSrvAccess verbs.Access
	// Which QPs end in ERR.
	wantCliErr, wantSrvErr bool
}

var remoteErrorCases = []remoteErrorCase{
	{name: "read-without-remote-read", op: verbs.WRRDMARead,
		tweak:      func(o *opts) { o.srvAccess = verbs.AccessLocalWrite | verbs.AccessRemoteWrite },
		wantStatus: verbs.WCRemAccessErr, wantCliErr: true, wantSrvErr: true, wantSrvAccess: qpRemoteAll},
	// rxe's provider checks the alignment at post: nothing is sent.
	{name: "atomic-unaligned", op: verbs.WRAtomicFetchAndAdd, offset: 4,
		tweak:    func(o *opts) { o.srvAccess = allRemote },
		wantPost: syscall.EINVAL, wantSrvAccess: qpRemoteAll},
	{name: "atomic-without-remote-atomic", op: verbs.WRAtomicFetchAndAdd,
		tweak:      func(o *opts) { o.srvAccess = verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead },
		wantStatus: verbs.WCRemAccessErr, wantCliErr: true, wantSrvErr: true, wantSrvAccess: qpRemoteAll},
	// The client's initiator_depth 0 becomes the server's responder
	// resources in ib_cm: its QP gets no REMOTE_READ, the READ is an
	// invalid request (the client's own max_rd_atomic is still 1: it
	// comes from the server's responder_resources in the REP).
	{name: "read-initiator-depth-0", op: verbs.WRRDMARead,
		tweak:      func(o *opts) { o.cliInitDepth = 0 },
		wantStatus: verbs.WCRemInvReqErr, wantCliErr: true, wantSrvErr: true, wantSrvAccess: verbs.AccessRemoteWrite},
}

// qpRemoteAll is the qp_access_flags rdma_cm gives an RC QP whose peer
// asked for an initiator depth above 0.
const qpRemoteAll = verbs.AccessRemoteWrite | verbs.AccessRemoteRead | verbs.AccessRemoteAtomic

func TestReadAtomicErrors(t *testing.T) {
	p := open(t)
	addr := rdmaAddr(t, p)
	for _, c := range remoteErrorCases {
		t.Run(c.name, func(t *testing.T) {
			o := defaults()
			c.tweak(&o)
			pr := connect(t, p, addr, o)
			cli, srv := &pr.cli, &pr.srv
			ca, sa := must(cli.qp.Query())(t), must(srv.qp.Query())(t)
			t.Logf("FACT client max_rd_atomic %d max_dest_rd_atomic %d access %s; server max_rd_atomic %d max_dest_rd_atomic %d access %s",
				ca.MaxRdAtomic, ca.MaxDestRdAtom, ca.AccessFlags, sa.MaxRdAtomic, sa.MaxDestRdAtom, sa.AccessFlags)
			wr := verbs.SendWR{WRID: 9, Opcode: c.op, Flags: verbs.SendSignaled,
				SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 8, LKey: cli.data.LKey()}},
				RemoteAddr: srv.data.Addr() + c.offset, RKey: srv.data.RKey(), CompareAdd: 1}
			if sa.AccessFlags != c.wantSrvAccess || ca.MaxRdAtomic != 1 || sa.MaxDestRdAtom != 1 {
				t.Errorf("server access %s max_dest_rd_atomic %d, client max_rd_atomic %d; want %s, 1, 1", sa.AccessFlags, sa.MaxDestRdAtom, ca.MaxRdAtomic, c.wantSrvAccess)
			}
			if err := cli.qp.PostSend(wr); err != nil || c.wantPost != 0 {
				t.Logf("FACT %s: ibv_post_send: %v; client QP %s server QP %s", c.name, err, must(cli.qp.Query())(t).State, must(srv.qp.Query())(t).State)
				if !errors.Is(err, c.wantPost) || c.wantPost == 0 {
					t.Fatalf("post: %v, want errno %d", err, c.wantPost)
				}
				if wcs := must(cli.cq.Poll(4))(t); len(wcs) != 0 || must(cli.qp.Query())(t).State != verbs.QPSRTS {
					t.Errorf("a refused post left completions %+v or changed the QP state", wcs)
				}
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
			wc, err := verbs.PollOne(ctx, cli.cq)
			cancel()
			cs, ss := must(cli.qp.Query())(t).State, must(srv.qp.Query())(t).State
			srvWCs := must(srv.cq.Poll(8))(t)
			if err != nil {
				t.Logf("FACT %s: no completion in 4 s; client QP %s, server QP %s, server wcs %+v", c.name, cs, ss, srvWCs)
				if !c.wantNoWC {
					t.Errorf("no completion, want %s", c.wantStatus.CName())
				}
				return
			}
			t.Logf("FACT %s: wc status %s (%q) vendor_err 0x%x opcode %s; client QP %s, server QP %s, server wcs %+v",
				c.name, wc.Status.CName(), wc.Status, wc.VendorErr, wc.Opcode, cs, ss, srvWCs)
			if c.wantNoWC || wc.Status != c.wantStatus {
				t.Errorf("wc %s, want %s (no wc: %v)", wc.Status.CName(), c.wantStatus.CName(), c.wantNoWC)
			}
			if (cs == verbs.QPSErr) != c.wantCliErr || (ss == verbs.QPSErr) != c.wantSrvErr {
				t.Errorf("client QP %s server QP %s, want ERR: client %v server %v", cs, ss, c.wantCliErr, c.wantSrvErr)
			}
		})
	}
}

// TestQPAccessAtInit: what rdma_create_qp leaves in qp_access_flags
// before the connection sets them (the sim shows the same).
func TestQPAccessAtInit(t *testing.T) {
	p := open(t)
	addr := rdmaAddr(t, p)
	// The client's QP, before rdma_connect; its own subtest, so that it is
	// gone before the pairs below check that nothing is left.
	t.Run("client", func(t *testing.T) {
		ch := must(p.CreateEventChannel())(t)
		defer ch.Destroy()
		id := must(ch.CreateID(verbs.PSTCP))(t)
		noErr(t, id.ResolveAddr(netip.AddrPort{}, netip.AddrPortFrom(addr, port()), 5*time.Second))
		event(t, ch, verbs.EventAddrResolved)
		var s side
		s.id = id
		s.build(t, verbs.AccessLocalWrite, 0)
		defer s.teardown(t) // QP, MRs, CQ, PD and the id
		a := must(s.qp.Query())(t)
		t.Logf("FACT after rdma_create_qp: state %s qp_access_flags %s (0x%x) max_rd_atomic %d max_dest_rd_atomic %d", a.State, a.AccessFlags, uint32(a.AccessFlags), a.MaxRdAtomic, a.MaxDestRdAtom)
		if a.State != verbs.QPSInit || a.AccessFlags != 0 {
			t.Errorf("state %s access %s, want INIT and 0", a.State, a.AccessFlags)
		}
	})
	// The server's QP, made on the connection request's id: ib_cm grants
	// by the REQ's initiator depth.
	for _, depth := range []uint8{0, 1} {
		// One pair per subtest: each pair's cleanup checks that nothing
		// is left alive.
		t.Run(fmt.Sprintf("initiator_depth=%d", depth), func(t *testing.T) {
			o := defaults()
			o.cliInitDepth = depth
			pr := connect(t, p, addr, o)
			want := verbs.AccessRemoteWrite
			if depth > 0 {
				want = qpRemoteAll
			}
			t.Logf("FACT server QP after rdma_create_qp (REQ initiator_depth %d): qp_access_flags %s", depth, pr.srvInitAccess)
			if pr.srvInitAccess != want {
				t.Errorf("initiator_depth %d: server INIT access %s, want %s", depth, pr.srvInitAccess, want)
			}
		})
	}
}
