package steps

import (
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// TestResponsesFiledUnderTheirCause: the server's READ responses and
// atomic acknowledgements answer the client's requests; they are not
// the doing of the server's accept, the last step that posted work
// there (the ux review: "▸ Accept, handing out addr and rkey → out
// RDMA_READ_RESPONSE_FIRST").
func TestResponsesFiledUnderTheirCause(t *testing.T) {
	for _, tour := range []TourKind{TourRead, TourAtomic} {
		sides := runPair(t, Config{Tour: tour})
		n := 0
		for _, wp := range sides[Server].Snapshot().Packets {
			if !wp.Outbound || !isResponse(wp.Opcode) || wp.Opcode == verbs.OpAcknowledge {
				continue
			}
			n++
			if wp.Step == string(IDAccept) {
				t.Errorf("%s: %s filed under the accept", tour, verbs.OpcodeName(wp.Opcode))
			}
		}
		if n == 0 {
			t.Errorf("%s: no response on the server's wire", tour)
		}
	}
}
