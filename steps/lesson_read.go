package steps

import (
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The read tour's lessons, with the errors measured on Soft-RoCE
// (verbs/rdmacore TestReadAtomicErrors) and reproduced by the simulated
// NIC (verbs/sim TestReadAtomicErrorsLikeRxe).

// noRemoteRead is the server's mistake of no-remote-read: one remote
// access flag short.
var noRemoteRead = verbs.AccessLocalWrite | verbs.AccessRemoteWrite

func lessonNoRemoteRead() Lesson {
	return Lesson{Name: "no-remote-read", Tour: TourRead, by: Server,
		Title:   text.Text{EN: "READ from an MR without REMOTE_READ", ZH: "READ 一个没有 REMOTE_READ 权限的 MR"},
		Summary: text.Text{EN: "the server registers its buffer without IBV_ACCESS_REMOTE_READ: the client's READ fails with remote access error", ZH: "server 注册 buffer 时没给 IBV_ACCESS_REMOTE_READ：client 的 READ 以 remote access error 失败"},
		edit:    withDataAccess(noRemoteRead, editReadError(verbs.WCRemAccessErr)), preset: []string{"server:reg-mr-data.access=" + noRemoteRead.String()},
		predict: clientAsks(&Prediction{At: IDPollRead,
			Question: text.Text{EN: "The server registered its buffer with IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, without REMOTE_READ. How does the client's RDMA READ complete?",
				ZH: "server 注册 buffer 时给的是 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE，没有 REMOTE_READ。client 的 RDMA READ 的完成状态是什么？"},
			Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRemAccessErr), statusChoice(verbs.WCLocProtErr), statusChoice(verbs.WCRemInvReqErr)}})}
}

func lessonReadDepthZero() Lesson {
	return Lesson{Name: "read-depth-zero", Tour: TourRead, by: Client,
		Title:   text.Text{EN: "READ after connecting with initiator_depth 0", ZH: "用 initiator_depth 0 连接之后再 READ"},
		Summary: text.Text{EN: "the client connects with initiator_depth 0: rdma_cm gives the server's QP no remote read, and the READ fails with remote invalid request error", ZH: "client 用 initiator_depth 0 连接：rdma_cm 不给 server 的 QP 远端读权限，READ 以 remote invalid request error 失败"},
		edit:    editReadError(verbs.WCRemInvReqErr), client: Mistake{ZeroInitiatorDepth: true},
		predict: clientAsks(&Prediction{At: IDPollRead,
			Question: text.Text{EN: "The client connected with initiator_depth 0 (the server accepted with responder_resources 1), then posts one RDMA READ. How does it complete?",
				ZH: "client 用 initiator_depth 0 连接（server 用 responder_resources 1 accept），然后 post 一个 RDMA READ。它的完成状态是什么？"},
			Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRemAccessErr), statusChoice(verbs.WCRemInvReqErr), statusChoice(verbs.WCRetryExcErr)}})}
}

// editReadError: the client's READ fails with status; the server waits
// for the hang-up as in the plain read tour.
func editReadError(status verbs.WCStatus) func(Config, *tourEdit) {
	return func(cfg Config, t *tourEdit) {
		if cfg.Role == Client {
			t.edit(IDPollRead, func(st *Step) { st.Expect = expectStatus(status) })
		}
	}
}

// clientAsks is a lesson's question asked on the client only: that is
// where the read and atomic tours' answers show.
func clientAsks(p *Prediction) func(Config) *Prediction {
	return func(cfg Config) *Prediction {
		if cfg.Role != Client {
			return nil
		}
		q := *p
		return &q
	}
}

// initiatorDepth is this side's initiator_depth for rdma_connect.
func (s *Session) initiatorDepth() uint8 {
	if s.mistake().ZeroInitiatorDepth {
		return 0
	}
	return 1
}
