package guide_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

var loopback = netip.MustParseAddr("127.0.0.1")

// waitCase is a step and what the hint says while it waits.
type waitCase struct {
	name   string
	cfg    steps.Config
	stepID steps.StepID
	want   string // guide.WhatPeerMustDo(w).EN; "" = the step does not wait on the peer
	wantZH string
}

func waitCases() []waitCase {
	return []waitCase{
		{"client waits for accept", steps.Config{Role: steps.Client}, "get-established",
			"on the server: press Enter until step 13, Accept, handing out addr and rkey", "在 server 端：一直按回车，直到第 13 步「accept，并交出 addr 和 rkey」"},
		{"server waits for connect", steps.Config{Role: steps.Server}, "get-connect-request",
			"on the client: press Enter until step 11, Send the connect request", ""},
		{"server waits for the RTU", steps.Config{Role: steps.Server}, "get-established",
			"on the client: press Enter until step 12, Wait for ESTABLISHED and read remote_info", ""},
		{"server waits for the notification (send)", steps.Config{Role: steps.Server}, "wait-notify",
			"on the client: press Enter until step 15, SEND \"RDMA_WRITE_DONE\"", ""},
		{"server waits for the notification (doorbell)", steps.Config{Role: steps.Server, Notify: steps.NotifyDoorbell}, "wait-notify",
			"on the client: press Enter until step 15, Ring the doorbell with a second WRITE", ""},
		{"server waits for the notification (imm)", steps.Config{Role: steps.Server, Notify: steps.NotifyImm}, "wait-notify",
			"on the client: press Enter until step 13, RDMA WRITE with immediate", ""},
		{"resolve waits on the network only", steps.Config{Role: steps.Client}, "resolve-addr", "", ""},
		{"poll-write waits on the NIC only", steps.Config{Role: steps.Client}, "poll-write", "", ""},
		{"manual track: client waits for accept", steps.Config{Role: steps.Client, Track: steps.TrackManual}, "get-connect-response",
			"on the server: press Enter until step", ""},
	}
}

// The waiting hint names the peer's step from the tour plan, and so does
// the note for a key pressed during the wait.
func TestWaitForNamesThePeersStep(t *testing.T) {
	for _, tt := range waitCases() {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Provider = sim.New(sim.Options{})
			cfg.Bind = netip.AddrPortFrom(loopback, 0)
			cfg.Server = netip.AddrPortFrom(loopback, 7471)
			s, err := steps.NewSession(cfg)
			if err != nil {
				t.Fatal(err)
			}
			idx := -1
			for i, st := range s.Steps() {
				if st.ID == tt.stepID {
					idx = i
				}
			}
			if idx < 0 {
				t.Fatalf("no step %s in %v", tt.stepID, s.Steps())
			}
			w, ok := s.WaitFor(idx)
			if tt.want == "" {
				if ok {
					t.Fatalf("WaitFor(%s) = %q, want none", tt.stepID, guide.WhatPeerMustDo(w).EN)
				}
				return
			}
			if !ok || !strings.HasPrefix(guide.WhatPeerMustDo(w).EN, tt.want) {
				t.Fatalf("WaitFor(%s) = %q (%v), want %q", tt.stepID, guide.WhatPeerMustDo(w).EN, ok, tt.want)
			}
			handshake := tt.stepID == "get-established" || tt.stepID == "get-connect-response"
			if got := strings.Contains(w.Timer.EN, "MRA") && strings.Contains(w.Timer.ZH, "MRA"); got != handshake {
				t.Errorf("timer note %q: mentions the MRA = %v, want %v", w.Timer.EN, got, handshake)
			}
			if tt.wantZH != "" && guide.WhatPeerMustDo(w).ZH != tt.wantZH {
				t.Errorf("zh = %q, want %q", guide.WhatPeerMustDo(w).ZH, tt.wantZH)
			}
			checkNotesNameThePeersStep(t, w)
		})
	}
}

// checkNotesNameThePeersStep: the key note and the --auto wording name
// the peer's step too.
func checkNotesNameThePeersStep(t *testing.T, w steps.PeerWait) {
	t.Helper()
	note := guide.WaitNote(w, true)
	step := fmt.Sprintf("step %d", w.Index+1)
	if !strings.Contains(note.EN, w.Peer.String()) || !strings.Contains(note.EN, step) || !strings.Contains(note.ZH, fmt.Sprintf("第 %d 步", w.Index+1)) {
		t.Errorf("WaitNote does not name the peer's step: %+v", note)
	}
	if reach := guide.WhatPeerMustReach(w); !strings.Contains(reach.EN, step) || !strings.Contains(reach.EN, w.Step.Title.EN) {
		t.Errorf("WhatPeerMustReach = %+v, want the peer's %s and its title", reach, step)
	}
}

// A key pressed during a wait on the network names no peer step.
func TestWaitNoteOnTheNetwork(t *testing.T) {
	if note := guide.WaitNote(steps.PeerWait{}, false); !strings.Contains(note.EN, "network") || note.ZH == "" {
		t.Errorf("network wait: %+v", note)
	}
}
