package sim

import (
	"bytes"
	"encoding/binary"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

const allRemote = verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead | verbs.AccessRemoteAtomic

func TestDeviceAtomicAttrs(t *testing.T) {
	d := New(Options{}).dev.Info()
	// rxe0 in the guest: IBV_ATOMIC_HCA, 128, 128.
	if d.AtomicCap != verbs.AtomicHCA || d.MaxQPRdAtom != 128 || d.MaxQPInitRdAtom != 128 {
		t.Fatalf("%+v", d)
	}
}

// TestAtomics is verbs/rdmacore's TestAtomicsOnRealDevice: the same
// operations and the values rxe returned.
func TestAtomics(t *testing.T) {
	var pcap bytes.Buffer
	srv, cli := connectPair(t, pairCfg{serverPcap: &pcap})
	remote := srv.regMR(t, 4096, allRemote)
	local := cli.regMR(t, 4096, verbs.AccessLocalWrite)
	must(t, remote.Write(64, binary.LittleEndian.AppendUint64(nil, 40)))
	steps := []struct {
		op               verbs.WROpcode
		compareAdd, swap uint64
		wantOld, wantNow uint64
	}{
		{verbs.WRAtomicFetchAndAdd, 2, 0, 40, 42},
		{verbs.WRAtomicCmpAndSwp, 42, 7, 42, 7},
		{verbs.WRAtomicCmpAndSwp, 42, 99, 7, 7},
	}
	for i, st := range steps {
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: uint64(i), Opcode: st.op, Flags: verbs.SendSignaled,
			SGList: sge(local, 512, 8), RemoteAddr: remote.Addr() + 64, RKey: remote.RKey(), CompareAdd: st.compareAdd, Swap: st.swap}))
		wc := pollN(t, cli.cq, 1)[0]
		old, _ := local.Read(512, 8)
		now, _ := remote.Read(64, 8)
		if wc.Status != verbs.WCSuccess || wc.Opcode != st.op.CompletionOpcode() || wc.ByteLen != 8 ||
			binary.LittleEndian.Uint64(old) != st.wantOld || binary.LittleEndian.Uint64(now) != st.wantNow {
			t.Fatalf("%s: wc %+v old %d counter %d, want %d %d", st.op, wc, binary.LittleEndian.Uint64(old), binary.LittleEndian.Uint64(now), st.wantOld, st.wantNow)
		}
	}
	noMore(t, srv.cq) // atomics consume no RECV
	// Each side's QP counts its own packets: three atomics out of the
	// client's QP, three ATOMIC_ACKNOWLEDGEs out of the server's.
	for _, side := range []struct {
		name string
		dev  verbs.Device
		qpn  uint32
	}{{"client", cli.id.Device(), cli.qp.Num()}, {"server", srv.id.Device(), srv.qp.Num()}} {
		c, err := side.dev.(verbs.QPCounterReader).QPCounters(side.qpn)
		if err != nil || c["sent_pkts"] != 3 || c["rcvd_pkts"] != 3 {
			t.Errorf("%s QP counters %v (%v), want sent_pkts 3 rcvd_pkts 3", side.name, c, err)
		}
	}
	var seen []string
	for _, p := range cli.id.Device().(verbs.PacketTracer).Packets(0) {
		seen = append(seen, p.Summary())
	}
	want := []string{"FETCH_ADD", "ATOMIC_ACKNOWLEDGE", "COMPARE_SWAP", "ATOMIC_ACKNOWLEDGE", "COMPARE_SWAP", "ATOMIC_ACKNOWLEDGE"}
	if len(seen) != len(want) {
		t.Fatalf("packets %q", seen)
	}
	for i, w := range want {
		if !bytes.HasPrefix([]byte(seen[i]), []byte(w+" ")) {
			t.Fatalf("packet %d: %q, want %s", i, seen[i], w)
		}
	}
	if got := seen[1]; !bytes.Contains([]byte(got), []byte("orig=40")) || !bytes.Contains([]byte(seen[0]), []byte("add=2")) {
		t.Fatalf("atomic headers not traced: %q", seen)
	}
	// The writers tap each packet under the sink's lock before it leaves;
	// taking that lock orders their writes before this read (the socket
	// the packets crossed gives the race detector no such edge).
	must(t, srv.p.PcapErr())
	frames, err := wire.ReadPcap(&pcap)
	must(t, err)
	var atomics int
	for i, b := range frames {
		f, err := wire.DecodeFrame(b)
		if err != nil || !f.ICRCValid {
			t.Fatalf("frame %d: %v (ICRC valid %v)", i+1, err, err == nil && f.ICRCValid)
		}
		p := f.Packet
		switch p.BTH.Opcode {
		case wire.Opcode(verbs.OpCompareSwap), wire.Opcode(verbs.OpFetchAdd):
			if p.AtomicETH == nil || p.AtomicETH.VA != remote.Addr()+64 || p.AtomicETH.RKey != remote.RKey() {
				t.Fatalf("frame %d: AtomicETH %+v", i+1, p.AtomicETH)
			}
			atomics++
		case wire.Opcode(verbs.OpAtomicAcknowledge):
			if p.AtomicAckETH == nil || p.AETH == nil {
				t.Fatalf("frame %d: ATOMIC_ACKNOWLEDGE without AETH/AtomicAckETH", i+1)
			}
			atomics++
		}
	}
	if atomics != 6 {
		t.Fatalf("%d atomic frames in the pcap, want 6", atomics)
	}
	tsharkReads(t, pcap.Bytes())
}

// TestReadAtomicErrorsLikeRxe holds the table measured on rxe
// (verbs/rdmacore TestReadAtomicErrors).
func TestReadAtomicErrorsLikeRxe(t *testing.T) {
	cases := []struct {
		name       string
		access     verbs.Access
		cliInit    uint8 // initiator_depth in rdma_connect
		op         verbs.WROpcode
		off        uint64
		postErrno  syscall.Errno // ibv_post_send fails; nothing is sent
		want       verbs.WCStatus
		noWC       bool
		cliErr     bool
		srvErr     bool
		srvAccess  verbs.Access // the server QP's qp_access_flags
		cliMaxRdAt uint8        // the client QP's max_rd_atomic
	}{
		{name: "read-without-remote-read", access: verbs.AccessLocalWrite | verbs.AccessRemoteWrite, cliInit: 1, op: verbs.WRRDMARead,
			want: verbs.WCRemAccessErr, cliErr: true, srvErr: true, srvAccess: cmAccess(1), cliMaxRdAt: 1},
		{name: "atomic-unaligned", access: allRemote, cliInit: 1, op: verbs.WRAtomicFetchAndAdd, off: 4,
			postErrno: syscall.EINVAL, srvAccess: cmAccess(1), cliMaxRdAt: 1},
		{name: "atomic-without-remote-atomic", access: verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead, cliInit: 1,
			op: verbs.WRAtomicFetchAndAdd, want: verbs.WCRemAccessErr, cliErr: true, srvErr: true, srvAccess: cmAccess(1), cliMaxRdAt: 1},
		{name: "read-initiator-depth-0", access: allRemote, cliInit: 0, op: verbs.WRRDMARead,
			want: verbs.WCRemInvReqErr, cliErr: true, srvErr: true, srvAccess: verbs.AccessRemoteWrite, cliMaxRdAt: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{keepRdAtomic: true,
				connect: verbs.ConnParam{ResponderResources: 1, InitiatorDepth: c.cliInit, RetryCount: 7, RNRRetryCount: 7},
				accept:  verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, RNRRetryCount: 7}})
			remote := srv.regMR(t, 4096, c.access)
			local := cli.regMR(t, 4096, verbs.AccessLocalWrite)
			sa, _ := srv.qp.Query()
			ca, _ := cli.qp.Query()
			if sa.AccessFlags != c.srvAccess || ca.MaxRdAtomic != c.cliMaxRdAt || sa.MaxDestRdAtom != 1 {
				t.Fatalf("server access %s max_dest_rd_atomic %d, client max_rd_atomic %d; want %s, 1, %d",
					sa.AccessFlags, sa.MaxDestRdAtom, ca.MaxRdAtomic, c.srvAccess, c.cliMaxRdAt)
			}
			err := cli.qp.PostSend(verbs.SendWR{WRID: 9, Opcode: c.op, Flags: verbs.SendSignaled, SGList: sge(local, 0, 8),
				RemoteAddr: remote.Addr() + c.off, RKey: remote.RKey(), CompareAdd: 1})
			if c.postErrno != 0 {
				wantErrno(t, err, "ibv_post_send", c.postErrno)
				noMore(t, cli.cq)
				if qpState(t, cli.qp) != verbs.QPSRTS || qpState(t, srv.qp) != verbs.QPSRTS {
					t.Fatal("a refused post changed a QP's state")
				}
				return
			}
			must(t, err)
			wc := pollN(t, cli.cq, 1)[0]
			wantStatus(t, wc, 9, c.want)
			deadline := time.Now().Add(2 * time.Second)
			for (qpState(t, srv.qp) == verbs.QPSErr) != c.srvErr && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if (qpState(t, cli.qp) == verbs.QPSErr) != c.cliErr || (qpState(t, srv.qp) == verbs.QPSErr) != c.srvErr {
				t.Fatalf("client %s server %s", qpState(t, cli.qp), qpState(t, srv.qp))
			}
		})
	}
}

// TestReadDepthLimit: with max_rd_atomic 1 the requester keeps the second
// READ until the first one's response is in, then sends it.
func TestReadDepthLimit(t *testing.T) {
	srv, cli := connectPair(t, pairCfg{})
	remote := srv.regMR(t, 4096, allRemote)
	local := cli.regMR(t, 4096, verbs.AccessLocalWrite)
	must(t, remote.Write(0, []byte("first second")))
	for i := range 2 {
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: uint64(i), Opcode: verbs.WRRDMARead, Flags: verbs.SendSignaled,
			SGList: sge(local, i*64, 6), RemoteAddr: remote.Addr() + uint64(i*6), RKey: remote.RKey()}))
	}
	wcs := pollN(t, cli.cq, 2)
	if wcs[0].WRID != 0 || wcs[1].WRID != 1 || wcs[1].Status != verbs.WCSuccess {
		t.Fatalf("%+v", wcs)
	}
	var reqs, resps []uint64
	for _, p := range cli.id.Device().(verbs.PacketTracer).Packets(0) {
		switch p.Opcode {
		case verbs.OpRDMAReadRequest:
			reqs = append(reqs, p.Seq)
		case verbs.OpRDMAReadRespOnly:
			resps = append(resps, p.Seq)
		}
	}
	if len(reqs) != 2 || len(resps) != 2 || reqs[1] < resps[0] {
		t.Fatalf("second READ request went out before the first response: requests %v responses %v", reqs, resps)
	}
}

// TestQPAccessAtInit: rdma_create_qp's QP before the connection is set
// up, as measured on rxe (verbs/rdmacore TestQPAccessAtInit: the client's
// QP has qp_access_flags 0), and the server's, which ib_cm sets from the
// REQ's initiator depth.
func TestQPAccessAtInit(t *testing.T) {
	for _, depth := range []uint8{0, 1} {
		srv, cli := connectPair(t, pairCfg{keepRdAtomic: true,
			connect: verbs.ConnParam{ResponderResources: 1, InitiatorDepth: depth}, accept: verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1}})
		if cli.initAccess != 0 || srv.initAccess != cmAccess(depth) {
			t.Errorf("initiator_depth %d: client INIT access %s, server %s; want 0 and %s", depth, cli.initAccess, srv.initAccess, cmAccess(depth))
		}
	}
}
