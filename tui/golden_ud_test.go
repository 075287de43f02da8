package tui

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// Golden frames of the ud tour's client right after ibv_create_ah: the
// live state anchored at the QP section, which shows what UD adds (see
// TestGoldenFrames for the fixture's rules; update the same way).
func TestGoldenFramesUD(t *testing.T) {
	for _, lang := range []steps.Lang{steps.LangEN, steps.LangZH} {
		name := "client-" + lang.String() + "-120x40"
		t.Run(name, func(t *testing.T) {
			m := goldenUDModel(t, lang, 120, 40)
			screen := m.render()
			checkFrame(t, name, screen, 120, 40)
			if strings.IndexByte(screen, 0x1b) >= 0 {
				t.Fatal("escape sequences with NO_COLOR")
			}
			golden.RequireEqual(t, screen+"\n")
		})
	}
}

// goldenUDModel is the ud client's fixture: every step up to
// ud-create-ah done.
func goldenUDModel(t *testing.T, lang steps.Lang, w, h int) *model {
	t.Helper()
	cfg := steps.Config{Role: steps.Client, Tour: steps.TourUD, Provider: sim.New(sim.Options{}),
		Server: netip.MustParseAddrPort("10.0.2.15:7471"), Timeout: 10 * time.Second}
	sess, err := steps.NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	m := newTestModel(t, []steps.Runner{sess}, lang, w, h, "NO_COLOR=1")
	m.now = func() time.Time { return goldenClock }
	s := sess.Snapshot()
	done := -1
	for i := range s.Steps {
		if s.Steps[i].ID == "ud-create-ah" {
			done = i + 1
		}
	}
	if done < 0 {
		t.Fatal("the ud tour has no ud-create-ah step")
	}
	for i := range done {
		s.Steps[i].State = steps.Succeeded
		s.Steps[i].Outcome = &steps.Outcome{Call: s.Steps[i].Call + "  /* = 0 */",
			Note: steps.Text{EN: "What the call did, in words.", ZH: "这个调用做了什么。"}}
	}
	s.Next = done
	fillUDState(&s)
	m.snaps = []steps.Snapshot{s}
	for m.planPos < len(m.plan) && m.plan[m.planPos].Index < done {
		m.planPos++
	}
	m.run.lastSide, m.run.lastIdx = 0, done-1
	return m
}

// fillUDState is the ud client with its address handle made.
func fillUDState(s *steps.Snapshot) {
	gid := netip.MustParseAddr("::ffff:10.0.2.15")
	s.Device = &steps.DeviceState{Info: verbs.DeviceInfo{Name: "sim0", Transport: "simulated"}, PortNum: 1, GIDIndex: 1,
		Port: verbs.PortAttr{Num: 1, State: verbs.PortActive, ActiveMTU: 1024, MaxMTU: 4096, LinkLayer: "Ethernet",
			GIDs: []verbs.GIDEntry{{Index: 1, GID: gid, Type: "RoCE v2"}}}}
	s.CMID = &steps.CMIDState{Local: "10.0.2.15:49152", Peer: "10.0.2.15:7471", LastEvent: "RDMA_CM_EVENT_ESTABLISHED"}
	s.PD = &steps.PDState{Handle: 1}
	s.CQ = &steps.CQState{CQE: 31}
	s.QP = &steps.QPState{Num: 0x4d5e6f, Type: "IBV_QPT_UD",
		Attr:    verbs.QPAttr{State: verbs.QPSRTS, QKey: verbs.UDPQKey, Cap: verbs.QPCap{MaxSendWR: 15, MaxRecvWR: 15, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: 16}},
		History: []verbs.QPState{verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS}}
	s.MRs = []steps.MRState{
		{Name: "recv", Addr: 0x7f3a_0000_0000, Len: steps.UDRecvSize, LKey: 0x100, RKey: 0x100, Access: verbs.AccessLocalWrite},
		{Name: "send", Addr: 0x7f3a_0000_1000, Len: steps.UDSendSize, LKey: 0x101, RKey: 0x101, Access: verbs.AccessLocalWrite},
	}
	s.UD = &steps.UDState{HasDest: true, RemoteQPN: 0x1a2b3c, RemoteQKey: verbs.UDPQKey,
		AH: &verbs.AHAttr{DGID: gid, SGIDIndex: 1, HopLimit: 64, FlowLabel: 0x2a5d1, IsGlobal: true, PortNum: 1}}
	s.Timeline = []steps.TimelineEntry{
		{FromServer: false, Label: "SIDR_REQ"}, {FromServer: true, Label: "SIDR_REP", Detail: "qp_num=0x1a2b3c qkey=0x1234567"},
	}
}
