package steps

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// fakeDevice is a device that only has an identity: what onIWARP reads.
type fakeDevice struct {
	verbs.Device
	info verbs.DeviceInfo
}

func (f fakeDevice) Info() verbs.DeviceInfo { return f.info }

func TestOnIWARP(t *testing.T) {
	siw := fakeDevice{info: verbs.DeviceInfo{Name: "siw0", Transport: verbs.TransportIWARP}}
	// An IB-transport device named like siw: the transport decides, not the name.
	roce := fakeDevice{info: verbs.DeviceInfo{Name: "siw9", Transport: "InfiniBand"}}
	for _, tc := range []struct {
		name    string
		dev     verbs.Device
		tour    TourKind
		role    Role
		notify  Notify
		track   Track
		refused string // in the error; "" = runs
		note    string // in the note when it runs
		sinkRW  bool   // the client's data MR gets REMOTE_WRITE
	}{
		{name: "write send on siw", dev: siw, tour: TourWrite, role: Client, notify: NotifySend, note: "siw0 is iWARP, not RoCE"},
		{name: "write doorbell on siw", dev: siw, tour: TourWrite, role: Client, notify: NotifyDoorbell, note: "real TCP connection to port 7471"},
		{name: "write imm on siw", dev: siw, tour: TourWrite, role: Client, notify: NotifyImm, refused: "--notify imm cannot run on siw0"},
		{name: "server of imm on siw", dev: siw, tour: TourWrite, role: Server, notify: NotifyImm, note: "siw0 is iWARP"},
		{name: "read client on siw", dev: siw, tour: TourRead, role: Client, note: "siw0 is iWARP", sinkRW: true},
		{name: "read server on siw", dev: siw, tour: TourRead, role: Server, note: "siw0 is iWARP"},
		{name: "atomic on siw", dev: siw, tour: TourAtomic, role: Client, refused: "--tour atomic cannot run on siw0, an iWARP device: iWARP has no atomics here"},
		{name: "atomic server on siw", dev: siw, tour: TourAtomic, role: Server, refused: "IBV_ATOMIC_NONE"},
		{name: "ud on siw", dev: siw, tour: TourUD, role: Client, refused: "--tour ud cannot run on siw0, an iWARP device: iWARP has no datagram service"},
		{name: "manual track client on siw", dev: siw, tour: TourWrite, role: Client, notify: NotifySend, track: TrackManual, refused: "--track manual cannot run on siw0, an iWARP device"},
		{name: "manual track server on siw", dev: siw, tour: TourWrite, role: Server, track: TrackManual, refused: "never CONNECT_RESPONSE"},
		{name: "manual track on RoCE", dev: roce, tour: TourWrite, role: Client, notify: NotifySend, track: TrackManual},
		{name: "atomic on RoCE named siw9", dev: roce, tour: TourAtomic, role: Client},
		{name: "read on RoCE", dev: roce, tour: TourRead, role: Client},
		{name: "no device yet", dev: nil, tour: TourUD, role: Client},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Session{}
			s.cfg = Config{Role: tc.role, Tour: tc.tour, Notify: tc.notify, Track: tc.track}
			s.cfg.Bind = netip.MustParseAddrPort("0.0.0.0:7471")
			s.cfg.Server = netip.MustParseAddrPort("10.0.2.15:7471")
			s.useDevice(tc.dev)
			note, err := s.onIWARP(tc.dev)
			switch {
			case tc.refused != "":
				if err == nil || !strings.Contains(Explain(err), tc.refused) {
					t.Fatalf("err %v, want one that says %q", err, tc.refused)
				}
			case err != nil:
				t.Fatalf("refused: %v", err)
			case tc.note == "" && note.EN != "":
				t.Errorf("note %q on a non-iWARP device", note.EN)
			case !strings.Contains(note.EN, tc.note) || (tc.note != "" && note.ZH == ""):
				t.Errorf("note %q, want %q (and a Chinese one)", note.EN, tc.note)
			}
			access, why := s.iwarpSinkAccess(verbs.AccessLocalWrite)
			if got := access&verbs.AccessRemoteWrite != 0; got != tc.sinkRW || (got && why.EN == "") {
				t.Errorf("client sink access %s (note %q), want REMOTE_WRITE %v", access.Short(), why.EN, tc.sinkRW)
			}
		})
	}
}

func TestCMMessagesOnIWARPAreMPAFrames(t *testing.T) {
	siw := fakeDevice{info: verbs.DeviceInfo{Name: "siw0", Transport: verbs.TransportIWARP}}
	roce := fakeDevice{info: verbs.DeviceInfo{Name: "rxe0", Transport: "InfiniBand"}}
	for _, tc := range []struct {
		dev  verbs.Device
		sent []string
		want []string
	}{
		{dev: siw, sent: []string{"REQ", "REP", "RTU", "RDMA WRITE", "ACK", "DREQ", "DREP", "REJ"},
			want: []string{"MPA Request", "MPA Reply", "RDMA WRITE", "TCP FIN", "TCP FIN", "MPA Reply (Reject)"}},
		{dev: roce, sent: []string{"REQ", "REP", "RTU", "ACK", "DREQ"}, want: []string{"REQ", "REP", "RTU", "ACK", "DREQ"}},
		{dev: nil, sent: []string{"REQ", "RTU"}, want: []string{"REQ", "RTU"}},
	} {
		s := &Session{}
		s.useDevice(tc.dev)
		for _, l := range tc.sent {
			s.sent(l, "")
		}
		var got []string
		for _, e := range s.timeline {
			got = append(got, e.Label)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%v: timeline %q, want %q", tc.dev, got, tc.want)
		}
		if note := s.establishedNote().EN; strings.Contains(note, "RTU arrived") == (tc.want[0] == "MPA Request") {
			t.Errorf("%v: ESTABLISHED note %q", tc.dev, note)
		}
	}
}

// fakeHost is a workshop room as NewHosted sees it, for a connect
// request on dev; fakeCMID only says which device it is bound to.
type fakeHost struct {
	dev verbs.Device
	pd  verbs.PD // the room's shared PD (nil: the Session allocates one)
	q   *EventQueue
}

type fakeCMID struct {
	verbs.CMID
	dev verbs.Device
}

func (f fakeCMID) Device() verbs.Device { return f.dev }

func (h fakeHost) Request() verbs.CMEvent {
	return verbs.CMEvent{Type: verbs.EventConnectRequest, ID: fakeCMID{dev: h.dev}}
}
func (h fakeHost) PD() verbs.PD                   { return h.pd }
func (h fakeHost) Events() *EventQueue            { return h.q }
func (h fakeHost) Counter() verbs.MR              { return nil }
func (h fakeHost) Owns(verbs.Packet, uint32) bool { return true }

// A room's attendee on siw0: the atomic room is refused for it before a
// PD is allocated (fakeDevice has none to give), and the write room's
// timeline names MPA frames, as a one-client server's does.
func TestHostedOnIWARP(t *testing.T) {
	siw := fakeDevice{info: verbs.DeviceInfo{Name: "siw0", Transport: verbs.TransportIWARP}}
	cfg := Config{Role: Server, Tour: TourAtomic, Provider: sim.New(sim.Options{})}
	_, err := NewHosted(cfg, fakeHost{dev: siw, q: NewEventQueue()})
	if err == nil || !strings.Contains(Explain(err), "--tour atomic cannot run on siw0") {
		t.Fatalf("atomic room on siw0: %v, want the iWARP refusal", err)
	}
	cfg.Tour = TourWrite
	s, err := NewHosted(cfg, fakeHost{dev: siw, pd: fakePD{}, q: NewEventQueue()})
	if err != nil {
		t.Fatalf("write room on siw0: %v", err)
	}
	if got, _ := s.wireLabel("REQ"); got != "MPA Request" {
		t.Errorf("the hosted Session's timeline calls the REQ %q, want MPA Request", got)
	}
}

// fakePD stands for the room's shared PD: NewHosted only keeps it.
type fakePD struct{ verbs.PD }
