package workshop_test

import (
	"context"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// remoteRights are the access flags a peer can use.
const remoteRights = verbs.AccessRemoteWrite | verbs.AccessRemoteRead | verbs.AccessRemoteAtomic

// TestEachAttendeeHasAPDOfTheirOwn: in a write or read room two
// attendees' server sessions hold different PDs, and the data buffer has
// the tour's one remote right; in an atomic room they share the room's
// PD and none of their own MRs there has a remote right (the counter is
// the only one). The room is back to its baseline after they leave.
func TestEachAttendeeHasAPDOfTheirOwn(t *testing.T) {
	for _, tc := range []struct {
		kind   steps.TourKind
		shared bool
		data   verbs.Access // the attendee's data MR
	}{
		{steps.TourWrite, false, verbs.AccessLocalWrite | verbs.AccessRemoteWrite},
		{steps.TourRead, false, verbs.AccessLocalWrite | verbs.AccessRemoteRead},
		{steps.TourAtomic, true, verbs.AccessLocalWrite},
	} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			r, addr := openTourRoom(t, tc.kind)
			ctx := context.Background()
			var pds []uint32
			for range 2 {
				c := tourClient(t, addr, tc.kind)
				defer c.Close()
				if err := runRoomClientUntil(ctx, c, steps.IDDisconnect); err != nil {
					t.Fatal(err)
				}
			}
			for _, a := range r.Attendees() {
				snap := a.Session().Snapshot()
				if snap.PD == nil {
					t.Fatalf("attendee %d has no PD", a.N)
				}
				pds = append(pds, snap.PD.Handle)
				for _, mr := range snap.MRs {
					want := verbs.AccessLocalWrite
					switch mr.Name {
					case "data":
						want = tc.data
					case "doorbell":
						if tc.kind == steps.TourWrite {
							want |= verbs.AccessRemoteWrite
						}
					}
					if mr.Access != want {
						t.Errorf("attendee %d's %s MR: %s, want %s", a.N, mr.Name, mr.Access, want)
					}
					if tc.shared && mr.Access&remoteRights != 0 {
						t.Errorf("attendee %d's %s MR has a remote right in the shared PD", a.N, mr.Name)
					}
				}
			}
			if len(pds) != 2 || (pds[0] == pds[1]) != tc.shared {
				t.Errorf("PD handles %v: shared=%v, want %v", pds, len(pds) == 2 && pds[0] == pds[1], tc.shared)
			}
		})
	}
}
