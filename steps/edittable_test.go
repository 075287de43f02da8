package steps_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// editCase is one single edit of the write tour and the outcome class it
// must end in on either backend: "ok" (the message landed), or the first
// step that failed and how — a call's errno ("client/post-write errno
// EINVAL"), a completion's status ("client/poll-write wc remote access
// error"), or a CM event ("server/wait-notify cm RDMA_CM_EVENT_DISCONNECTED").
type editCase struct {
	edit  string
	track steps.Track
	want  string
	// rxe, when set, is rxe's outcome where the sim's differs; no row
	// has one today. A new difference is said at its row and fixed in
	// the sim.
	rxe string
}

// editTable is every editable field of the write tour (send notify, both
// tracks), each with a value in range and at least one out of it: out of
// what the device allows (its errno or completion), or of what the edit
// language allows ("refused": the value never reaches the device).
// client:modify-rts.sq_psn=0 is left out: whether the server takes a
// random PSN's distance to 0 as a duplicate (ACKed, nothing lands) or as
// out of sequence (NAKed) depends on the PSN it drew.
func editTable() []editCase {
	m := steps.TrackManual
	return []editCase{
		{"create-cq.cqe=4", 0, "ok", ""},
		{"create-cq.cqe=0", 0, "client/create-cq errno EINVAL", ""},
		{"server:create-cq.cqe=100000", 0, "server/create-cq errno EINVAL", ""},
		{"create-qp.max_send_wr=1", 0, "ok", ""},
		{"create-qp.max_send_wr=70000", 0, "refused", ""},
		{"create-qp.max_recv_wr=1", 0, "ok", ""},
		{"server:create-qp.max_recv_wr=70000", 0, "refused", ""},
		{"create-qp.max_send_sge=2", 0, "ok", ""},
		{"create-qp.max_send_sge=33", 0, "client/create-qp errno EINVAL", ""},
		{"create-qp.max_send_sge=65", 0, "refused", ""},
		{"create-qp.max_recv_sge=2", 0, "ok", ""},
		{"create-qp.max_recv_sge=33", 0, "client/create-qp errno EINVAL", ""},
		// rxe grants at least 16 bytes inline, and up to 512 (RXE_MAX_INLINE_DATA).
		{"create-qp.max_inline_data=64", 0, "ok", ""},
		{"create-qp.max_inline_data=1024", 0, "client/create-qp errno EINVAL", ""},
		{"create-qp.max_inline_data=4097", 0, "refused", ""},
		{"create-qp-manual.max_inline_data=513", m, "client/create-qp-manual errno EINVAL", ""},
		{"create-qp-manual.max_send_wr=1", m, "ok", ""},
		{"create-qp-manual.max_send_sge=33", m, "client/create-qp-manual errno EINVAL", ""},
		{"server:reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE", 0, "client/poll-write wc remote access error", ""},
		{"server:reg-mr-data.access=+REMOTE_READ", 0, "ok", ""},
		{"server:reg-mr-data.access=IBV_ACCESS_REMOTE_WRITE", 0, "server/reg-mr-data errno EINVAL", ""},
		{"client:reg-mr-data.access=0", 0, "ok", ""},
		// A shorter MR: the server's refuses the WRITE past its end, the
		// client's SGE past its own MR's end fails locally.
		{"server:reg-mr-data.length=16", 0, "client/poll-write wc remote access error", ""},
		{"client:reg-mr-data.length=16", 0, "client/poll-write wc local protection error", ""},
		{"reg-mr-data.length=0", 0, "refused", ""},
		{"reg-mr-data.length=1099511627776", 0, "refused", ""},
		{"post-recv.length=8", 0, "client/poll-notify wc remote operation error", ""},
		{"post-recv.length=4096", 0, "ok", ""},
		{"post-recv.length=4097", 0, "refused", ""},
		{"post-recv.wr_id=7", 0, "ok", ""},
		{"server:post-recv.run=skip", 0, "client/poll-notify wc RNR retry counter exceeded", ""},
		{"post-recv.run=later", 0, "refused", ""},
		{"accept.rnr_retry_count=7", 0, "ok", ""},
		{"accept.responder_resources=255", 0, "ok", ""},
		{"accept.responder_resources=200", 0, "server/accept errno EINVAL", ""},
		{"accept.initiator_depth=0", 0, "ok", ""},
		{"accept.initiator_depth=129", 0, "server/accept errno EINVAL", ""},
		{"accept.rnr_retry_count=8", 0, "refused", ""},
		{"accept-manual.responder_resources=200", m, "server/accept-manual errno EINVAL", ""},
		{"connect.rnr_retry_count=7", 0, "ok", ""},
		{"connect.retry_count=0", 0, "ok", ""},
		{"connect.responder_resources=200", 0, "client/connect errno EINVAL", ""},
		{"connect.retry_count=8", 0, "refused", ""},
		{"connect.rnr_retry_count=-1", 0, "refused", ""},
		{"connect.initiator_depth=255", 0, "ok", ""},
		{"connect.initiator_depth=129", 0, "client/connect errno EINVAL", ""},
		{"connect-manual.initiator_depth=200", m, "client/connect-manual errno EINVAL", ""},
		{"server:modify-init.qp_access_flags=IBV_ACCESS_LOCAL_WRITE", m, "client/poll-write wc remote invalid request error", ""},
		{"client:modify-init.qp_access_flags=0", m, "ok", ""},
		{"modify-init.mask=-IBV_QP_PORT", m, "client/modify-init errno EINVAL", ""},
		{"modify-rtr.path_mtu=IBV_MTU_256", m, "ok", ""},
		{"modify-rtr.min_rnr_timer=31", m, "ok", ""},
		{"modify-rtr.min_rnr_timer=32", m, "refused", ""},
		{"modify-rtr.max_dest_rd_atomic=200", m, "ok", ""},
		{"modify-rtr.max_dest_rd_atomic=256", m, "refused", ""},
		{"client:modify-rtr.rq_psn=0", m, "ok", ""},
		{"modify-rtr.mask=-IBV_QP_AV", m, "server/modify-rtr errno EINVAL", ""},
		// Addressing (TestAddressingFacts): index 0 is rxe's IPv6
		// link-local GID, unreachable from an IPv4 dgid; 5 is empty.
		{"client:modify-rtr.sgid_index=0", m, "client/modify-rtr errno EINVAL", ""},
		{"client:modify-rtr.sgid_index=5", m, "client/modify-rtr errno ENODATA", ""},
		{"modify-rtr.sgid_index=256", m, "refused", ""},
		{"client:modify-rtr.is_global=0", m, "client/modify-rtr errno EINVAL", ""},
		{"modify-rtr.is_global=2", m, "refused", ""},
		{"client:modify-rtr.path_mtu=IBV_MTU_4096", m, "ok", ""},
		{"modify-rts.timeout=0", m, "ok", ""},
		{"modify-rts.retry_cnt=8", m, "refused", ""},
		{"modify-rts.rnr_retry=7", m, "ok", ""},
		{"modify-rts.max_rd_atomic=200", m, "server/modify-rts errno EINVAL", ""},
		{"modify-rts.sq_psn=0x1000000", m, "refused", ""},
		{"modify-rts.mask=-IBV_QP_SQ_PSN", m, "server/modify-rts errno EINVAL", ""},
		{"post-write.rkey=+1", 0, "client/poll-write wc remote access error", ""},
		{"post-write.rkey=lkey", 0, "client/poll-write wc remote access error", ""},
		{"post-write.rkey=rkey", 0, "ok", ""},
		{"post-write.remote_addr=+16", 0, "ok", ""},
		{"post-write.remote_addr=+4090", 0, "client/poll-write wc remote access error", ""},
		{"post-write.remote_addr=-1", 0, "client/poll-write wc remote access error", ""},
		{"post-write.length=0", 0, "ok", ""},
		{"post-write.length=4096", 0, "ok", ""},
		// rxe checks the local SGE per packet and the server the whole
		// RETH on the first: the server's NAK comes first (sim/localfault.go).
		{"post-write.length=4097", 0, "client/poll-write wc remote access error", ""},
		{"post-write.wr_id=1", 0, "ok", ""},
		// Moved before rdma_connect: the QP is in INIT, the post is refused.
		{"client:post-write.run=before:connect", 0, "client/post-write errno EINVAL", ""},
		{"post-write.run=before:accept", 0, "refused", ""},
		{"post-write.wr_id=-1", 0, "refused", ""},
		{"post-write.opcode=IBV_WR_RDMA_WRITE_WITH_IMM", 0, "client/poll-notify wc RNR retry counter exceeded", ""},
		{"post-write.opcode=IBV_WR_SEND", 0, "client/poll-notify wc RNR retry counter exceeded", ""},
		{"post-write.opcode=IBV_WR_RDMA_READ", 0, "client/poll-write wc remote access error", ""},
		{"post-write.send_flags=+FENCE", 0, "ok", ""},
		{"post-write.send_flags=-SIGNALED", 0, "refused", ""},
		{"post-write.send_flags=+INLINE", 0, "client/post-write errno EINVAL", ""},
		{"post-write.num_sge=0", 0, "ok", ""},
		{"post-write.num_sge=2", 0, "client/post-write errno EINVAL", ""},
		{"post-write.num_sge=65", 0, "refused", ""},
		{"post-write.message=edited", 0, "ok", ""},
		{"post-write.opcode=IBV_WR_ATOMIC_FETCH_AND_ADD", 0, "refused", ""},
		{"create-cq.cqe=200000", 0, "refused", ""},
		{"post-write.rkey=0x100000000", 0, "refused", ""},
	}
}

var failedStep = regexp.MustCompile(`running (server|client) step (\S+):`)

// editOutcome is the class of how a run ended (see editCase).
func editOutcome(err error) string {
	if err == nil {
		return "ok"
	}
	where := "?"
	if m := failedStep.FindStringSubmatch(err.Error()); m != nil {
		where = m[1] + "/" + m[2]
	}
	var ve *verbs.Error
	var ce *steps.CompletionError
	var me *steps.CMEventError
	switch {
	case errors.As(err, &ce):
		return where + " wc " + ce.WC.Status.String()
	case errors.As(err, &ve):
		return where + " errno " + verbs.ErrnoName(ve.Errno)
	case errors.As(err, &me):
		return where + " cm " + me.Got.String()
	}
	return where + " other: " + err.Error()
}

// runEditCase runs the write tour with one edit on two providers.
func runEditCase(t *testing.T, tc editCase, srv, cli verbs.Provider, bind string) string {
	t.Helper()
	e, err := steps.ParseEdit(tc.edit)
	if err != nil {
		var ee *steps.EditError
		if errors.As(err, &ee) {
			return "refused"
		}
		t.Fatal(err)
	}
	cfg := steps.Config{Track: tc.track, Edits: steps.Edits{e}, Timeout: 5 * time.Second, Message: "edit " + tc.edit}
	if bind != "" {
		cfg.Bind = mustAddrPort(t, bind)
	}
	sides, err := steps.RunPair(context.Background(), cfg, srv, cli)
	got := editOutcome(err)
	if err == nil {
		if r := sides[steps.Server].Snapshot().Result; r == nil {
			got = "ok but nothing landed"
		}
	}
	return got
}

// Item 8 of issue 21 on the simulated NIC: every single edit ends in the
// outcome class rxe gives (edittable_rdma_test.go runs the same table).
func TestEditTableOnSimulatedNIC(t *testing.T) {
	if len(editTable()) < 40 {
		t.Fatalf("%d edits; the table must have at least 40", len(editTable()))
	}
	for _, tc := range editTable() {
		t.Run(tc.edit, func(t *testing.T) {
			srv, cli := sim.New(sim.Options{}), sim.New(sim.Options{})
			if got := runEditCase(t, tc, srv, cli, ""); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			for name, nic := range map[string]verbs.Provider{"server": srv, "client": cli} {
				if live := nic.Live(); live.Total() != 0 {
					t.Errorf("%s leaked %+v", name, live)
				}
			}
		})
	}
}

func mustAddrPort(t *testing.T, s string) (ap netipAddrPort) {
	t.Helper()
	ap, err := parseAddrPort(s)
	if err != nil {
		t.Fatal(fmt.Errorf("bind %q: %w", s, err))
	}
	return ap
}
