package tui

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// Golden frames: the screen at fixed sizes in both languages, kept in
// testdata/TestGoldenFrames/*.golden, so that a layout change shows up as
// a diff to review. Update them with
//
//	go test ./tui -run TestGoldenFrames -update
//
// The state is a fixture, not a live run: the simulated NIC draws keys,
// addresses, PSNs and QP numbers at random as a real one does, and ports
// come from the OS. The steps, their titles and calls come from real
// sessions; no spinner turns and no highlight is fresh.

// goldenClock is long after every change in the fixture.
var goldenClock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fixtureSnap is side role's snapshot with the first done steps run.
func fixtureSnap(t testing.TB, role steps.Role, done int) steps.Snapshot {
	t.Helper()
	cfg := steps.Config{Role: role, Notify: steps.NotifySend, Provider: sim.New(sim.Options{}),
		Bind: netip.MustParseAddrPort("10.0.2.15:7471"), Server: netip.MustParseAddrPort("10.0.2.15:7471"),
		BackendWhy: text.Same("no RDMA device found: using the simulated NIC")}
	sess, err := steps.NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	s := sess.Snapshot()
	for i := range s.Steps {
		if i >= done {
			break
		}
		s.Steps[i].State = steps.Succeeded
		s.Steps[i].Outcome = &steps.Outcome{Call: s.Steps[i].Call + "  /* = 0 */",
			Note: text.Text{EN: "What the call did, in words.", ZH: "这个调用做了什么。"}}
	}
	s.Next = done
	fillState(&s, role)
	return s
}

// fillState is a connected side after the client's RDMA WRITE.
func fillState(s *steps.Snapshot, role steps.Role) {
	local, peer, qpn, dest := "10.0.2.15:7471", "10.0.2.15:49152", uint32(0x1a2b3c), uint32(0x4d5e6f)
	if role == steps.Client {
		local, peer, qpn, dest = peer, local, dest, qpn
	}
	gid := netip.MustParseAddr("::ffff:10.0.2.15")
	s.Device = &steps.DeviceState{Info: verbs.DeviceInfo{Name: "sim0", Transport: "simulated"}, PortNum: 1, GIDIndex: 0,
		Port: verbs.PortAttr{Num: 1, State: verbs.PortActive, ActiveMTU: 1024, MaxMTU: 4096, LinkLayer: "Ethernet",
			GIDs: []verbs.GIDEntry{{Index: 0, GID: gid, Type: "RoCE v2"}}}}
	s.CMID = &steps.CMIDState{Local: local, Peer: peer, LastEvent: "RDMA_CM_EVENT_ESTABLISHED", Connected: true}
	s.PD = &steps.PDState{Handle: 1}
	s.QP = &steps.QPState{Num: qpn, Type: "IBV_QPT_RC",
		Attr: verbs.QPAttr{State: verbs.QPSRTS, DestQPNum: dest, SQPSN: 0x1234, RQPSN: 0x5678, PathMTU: 1024,
			Cap: verbs.QPCap{MaxSendWR: 15, MaxRecvWR: 15, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: 16}}, // what rxe and the sim return for 8/8 (rxe_queue_init)
		History: []verbs.QPState{verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS}}
	rw := verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead
	for i, name := range []string{"data", "doorbell", "recv", "send"} {
		s.MRs = append(s.MRs, steps.MRState{Name: name, Addr: 0x7f3a_0000_0000 + uint64(i)*0x1000, Len: 4096,
			LKey: uint32(0x100 + i), RKey: uint32(0x100 + i), Access: rw})
	}
	data := make([]byte, steps.BufSize)
	copy(data, steps.DefaultMessage)
	s.Data = steps.BufferState{Bytes: data}
	s.Remote = &steps.RemoteState{Info: privdata.RemoteInfo{Addr: 0x7f3a_0000_0000, RKey: 0x100, Size: 4096,
		DoorbellAddr: 0x7f3a_0000_1000, DoorbellRKey: 0x101, DoorbellSize: 8}, Raw: make([]byte, privdata.RemoteInfoSize)}
	s.CQ = &steps.CQState{CQE: 31} // ibv_create_cq(16) on rxe and the sim
	s.Timeline = []steps.TimelineEntry{
		{FromServer: false, Label: "REQ"}, {FromServer: true, Label: "REP", Detail: "private data: remote_info"},
		{FromServer: false, Label: "RTU"}, {FromServer: false, Label: "RDMA WRITE 43B"}, {FromServer: true, Label: "ACK"},
	}
	s.Counters = map[string]uint64{"port_xmit_packets": 3, "port_rcv_packets": 3}
	step := "" // on the server, the client's WRITE is the peer's doing
	if role == steps.Client {
		step = "post-write"
	}
	s.Packets = []steps.WirePacket{
		{Step: step, Packet: verbs.Packet{Outbound: role == steps.Client, Opcode: verbs.OpRDMAWriteOnly, DestQP: qpn, PSN: 0x1234, AckReq: true,
			RETH: &verbs.RETH{VA: 0x7f3a_0000_0000, RKey: 0x100, DMALen: 43}, PayloadLen: 43}},
		{Step: step, Packet: verbs.Packet{Outbound: role == steps.Server, Opcode: verbs.OpAcknowledge, DestQP: dest, PSN: 0x1234, AETH: &verbs.AETH{MSN: 1}}},
	}
	if role == steps.Client {
		s.CQ.Completions = []verbs.WC{{WRID: 300, Status: verbs.WCSuccess, Opcode: verbs.WCRDMAWrite, QPNum: qpn}}
	}
}

// goldenModel is a model over the fixture, with nothing live behind it.
func goldenModel(t testing.TB, demo bool, lang text.Lang, w, h int) *model {
	t.Helper()
	r := newRig(t, steps.NotifySend)
	sessions := []steps.Runner{r.cli}
	if demo {
		sessions = []steps.Runner{r.srv, r.cli}
	}
	m := newTestModel(t, sessions, lang, w, h, "NO_COLOR=1")
	m.now = func() time.Time { return goldenClock }
	if demo {
		m.snaps = []steps.Snapshot{fixtureSnap(t, steps.Server, 14), fixtureSnap(t, steps.Client, 14)}
		for m.planPos < len(m.plan) && !(m.plan[m.planPos].Side == steps.Client && m.plan[m.planPos].Index == 14) {
			m.planPos++
		}
		m.run.lastSide, m.run.lastIdx = 1, 13
	} else {
		m.snaps = []steps.Snapshot{fixtureSnap(t, steps.Client, 14)}
		m.run.lastSide, m.run.lastIdx = 0, 13
	}
	return m // render does not refresh: the fixture stays
}

func TestGoldenFrames(t *testing.T) {
	for _, tt := range []struct {
		demo bool
		lang text.Lang
		w, h int
	}{
		{false, text.EN, 80, 24}, {false, text.ZH, 80, 24}, {false, text.EN, 120, 40}, {false, text.ZH, 120, 40},
		{true, text.EN, 80, 24}, {true, text.ZH, 80, 24}, {true, text.EN, 120, 40}, {true, text.ZH, 120, 40},
		// The presenter layout (a projector) and a one-side run at that size.
		{true, text.EN, 100, 30}, {true, text.ZH, 100, 30}, {false, text.ZH, 100, 30},
	} {
		name := "client"
		if tt.demo {
			name = "demo"
		}
		name = fmt.Sprintf("%s-%s-%dx%d", name, tt.lang, tt.w, tt.h)
		t.Run(name, func(t *testing.T) {
			m := goldenModel(t, tt.demo, tt.lang, tt.w, tt.h)
			screen := m.render()
			checkFrame(t, name, screen, tt.w, tt.h)
			if strings.IndexByte(screen, 0x1b) >= 0 {
				t.Fatal("escape sequences with NO_COLOR")
			}
			golden.RequireEqual(t, screen+"\n")
		})
	}
}
