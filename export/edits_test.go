package export_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/export"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// export-c with --edit writes the edited program: every edited argument
// marked /* you: was … */, a whole program even when the edit makes a
// step fail, and it builds with gcc -std=c99 -Wall -Werror.
func TestExportWithEditsCompiles(t *testing.T) {
	needGCC(t)
	for _, tc := range []struct {
		role  steps.Role
		edits []string
		want  []string
		track steps.Track
	}{
		{steps.Client, []string{"post-write.rkey=+1"}, []string{".rkey = rkey + 1 /* you: was rkey */"}, 0},
		{steps.Client, []string{"post-write.remote_addr=-8", "post-write.length=16"}, []string{"remote_addr - 8 /* you: was remote_addr */", ".length = 16 /* you: was strlen(buf) + 1 */"}, 0},
		{steps.Client, []string{"create-qp.max_send_sge=2", "post-write.num_sge=2", "post-write.opcode=IBV_WR_RDMA_WRITE_WITH_IMM"}, []string{"(struct ibv_sge[]){", "IBV_WR_RDMA_WRITE_WITH_IMM /* you: was IBV_WR_RDMA_WRITE */"}, 0},
		{steps.Client, []string{"connect.rnr_retry_count=7", "connect.retry_count=3", "create-cq.cqe=4"}, []string{".retry_count = 3 /* you: was 0 */", "4 /* you: was CQ_DEPTH */"}, 0},
		{steps.Server, []string{"reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE"}, []string{"IBV_ACCESS_LOCAL_WRITE /* you: was IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE */"}, 0},
		{steps.Server, []string{"post-recv.length=8", "accept.responder_resources=0"}, []string{".length = 8 /* you: was 128 */", ".responder_resources = 0 /* you: was 1 */"}, 0},
		{steps.Server, []string{"post-recv.run=skip"}, []string{"rdma_accept("}, 0},
		{steps.Server, []string{"reg-mr-data.length=16"}, []string{"posix_memalign((void **)&buf, 4096, 4096)", "ibv_reg_mr(pd, buf, 16 /* you: was BUF_SIZE */, "}, 0},
		{steps.Client, []string{"reg-mr-data.length=8192"}, []string{"posix_memalign((void **)&buf, 4096, 8192)", "ibv_reg_mr(pd, buf, 8192 /* you: was BUF_SIZE */, "}, 0},
		// The manual track's attr and mask edits: the program passes &attr
		// and mask, so it assigns the edited fields before ibv_modify_qp.
		{steps.Client, []string{"client:modify-rtr.sgid_index=0"}, []string{"attr.ah_attr.grh.sgid_index = 0 /* you: was 1 */;"}, steps.TrackManual},
		{steps.Client, []string{"modify-rts.timeout=3", "modify-rtr.path_mtu=IBV_MTU_512"}, []string{"attr.timeout = 3 /* you: was ", "attr.path_mtu = IBV_MTU_512 /* you: was IBV_MTU_1024 */;"}, steps.TrackManual},
	} {
		name := tc.role.String() + "/" + strings.Join(tc.edits, ",")
		t.Run(name, func(t *testing.T) {
			edits, err := steps.ParseEdits(tc.edits)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := export.Program(context.Background(), export.Options{Role: tc.role, Edits: edits, Track: tc.track}, sim.New(sim.Options{}), sim.New(sim.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(prog, w) {
					t.Errorf("program lacks %q", w)
				}
			}
			if skipped := strings.Contains(strings.Join(tc.edits, " "), "post-recv.run=skip"); tc.role == steps.Server && skipped == strings.Contains(prog, "ibv_post_recv(") {
				t.Errorf("post-recv skipped = %v, but the program's ibv_post_recv is there = %v", skipped, !skipped)
			}
			gccCheck(t, "edited", prog, "-o", filepath.Join(t.TempDir(), "prog"), "-libverbs", "-lrdmacm")
		})
	}
}

// An exported lesson marks its preset's arguments with the lesson's name
// (item 6 of issue 21), as the screen does.
func TestExportedLessonMarksItsPreset(t *testing.T) {
	l, err := steps.ParseLesson("bad-rkey")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := export.Program(context.Background(), export.Options{Role: steps.Client, Lesson: l, Notify: l.Notify}, sim.New(sim.Options{}), sim.New(sim.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	// 1 run in 256 the simulated client's lkey is the server's rkey, and
	// the preset flips its low byte so that the key stays wrong
	// (editTarget): the program says so.
	marked := strings.Contains(prog, ".rkey = mr->lkey /* lesson bad-rkey: was rkey */") ||
		strings.Contains(prog, ".rkey = mr->lkey ^ 0xff /* lesson bad-rkey: was rkey */")
	if !marked || strings.Contains(prog, "you: was") {
		t.Errorf("the exported bad-rkey lesson does not mark its preset as the lesson's:\n%s", prog)
	}
}
