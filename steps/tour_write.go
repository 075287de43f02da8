package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The write tour (the default): the client RDMA-WRITEs its message into
// the server's buffer and tells it so by SEND, a doorbell WRITE or
// WRITE_WITH_IMM (--notify). It follows the seed program
// (testdata/seed/rdma-write-demo.c) call for call, so a learner can hold
// the C source next to the screen.

// writeTour is the write tour's table: the RC skeleton around the
// WRITE and the notification the client chose.
func writeTour(n Notify) rcTour {
	return rcTour{kind: TourWrite, clientHangsUpAfter: IDWaitNotify,
		data: func(role Role) []Step {
			if role == Server {
				return []Step{waitNotifyStep()}
			}
			return writeSteps(n)
		}}
}

// serverTour and clientTour are the write tour's sides on the cm track.
func serverTour() []Step { return writeTour(NotifySend).steps(Server, cmTrack()) }

func clientTour(n Notify) []Step { return writeTour(n).steps(Client, cmTrack()) }

func waitNotifyStep() Step {
	return Step{ID: IDWaitNotify, Side: Server, Section: SectionData, Waits: true, Milestones: MilestoneLanded | MilestoneNotified, After: []StepID{IDPollWrite, IDPollNotify},
		Title: text.Text{EN: "Wait for the client's notification", ZH: "等待 client 的完成通知"},
		Call:  generic(waitPollCall()), run: stepWaitNotify}
}

// writeSteps are the client's WRITE and notification for n.
func writeSteps(n Notify) []Step {
	pollWrite := Step{ID: IDPollWrite, Side: Client, Section: SectionCQ, Waits: true,
		Title: text.Text{EN: "Poll the WRITE's completion", ZH: "轮询 WRITE 的完成"},
		Call:  generic(pollOne(verbs.WCRDMAWrite, "")), run: stepPollWrite}
	if n == NotifyImm {
		return []Step{{ID: IDPostWriteImm, Side: Client, Section: SectionData, After: []StepID{IDGetEstablished},
			Title: text.Text{EN: "RDMA WRITE with immediate", ZH: "带立即数的 RDMA WRITE"},
			Call:  postSendGeneric(verbs.WRRDMAWriteWithImm, "buf", ""), run: stepPostWriteImm}, pollWrite}
	}
	tour := []Step{{ID: IDPostWrite, Side: Client, Section: SectionData, After: []StepID{IDGetEstablished},
		Title: text.Text{EN: "RDMA WRITE into the server's buffer", ZH: "RDMA WRITE 写入 server 的 buffer"},
		Call:  postSendGeneric(verbs.WRRDMAWrite, "buf", ""), run: stepPostWrite}, pollWrite}
	if n == NotifySend {
		tour = append(tour, Step{ID: IDPostSend, Side: Client, Section: SectionQP,
			Title: text.Text{EN: "SEND \"RDMA_WRITE_DONE\"", ZH: "SEND \"RDMA_WRITE_DONE\" 通知"},
			Call:  postSendGeneric(verbs.WRSend, "send_buf", ""), run: stepPostSend})
	} else {
		tour = append(tour, Step{ID: IDPostDoorbell, Side: Client, Section: SectionDoorbell,
			Title: text.Text{EN: "Ring the doorbell with a second WRITE", ZH: "再用一次 WRITE 敲 doorbell"},
			Call:  postSendGeneric(verbs.WRRDMAWrite, "doorbell", ", 8 B"), run: stepPostDoorbell})
	}
	return append(tour, Step{ID: IDPollNotify, Side: Client, Section: SectionCQ, Waits: true,
		Title: text.Text{EN: "Poll the notification's completion", ZH: "轮询通知的完成"},
		Call:  generic(pollOne(verbs.WCRDMAWrite, "")), run: stepPollNotify})
}

// writeSummary is the write tour's result sentence: what the server's
// buffer holds and how it learned of it. The bytes are the client's:
// PeerBytes.String escapes them.
func writeSummary(r *Result) text.Text {
	how := map[Notify]text.Text{
		NotifySend:     {EN: "a SEND completed its posted RECV", ZH: "一个 SEND 消耗了它 post 的 RECV，产生完成"},
		NotifyDoorbell: {EN: "its CPU saw the doorbell flag turn 1", ZH: "它的 CPU 看到 doorbell 标志位变成了 1"},
		NotifyImm:      {EN: "RDMA_WRITE_WITH_IMM raised a RECV completion", ZH: "RDMA_WRITE_WITH_IMM 产生了一个 RECV 完成"},
	}[r.Via]
	msg, notice := r.Message.String(), r.Notice.String()
	return text.Text{EN: fmt.Sprintf("The server's buffer holds \"%s\". It learned of it because %s (%s).", msg, how.EN, notice),
		ZH: fmt.Sprintf("server 的 buffer 里现在是 \"%s\"。它之所以知道，是因为%s（%s）。", msg, how.ZH, notice)}
}

func writeTourDef() TourDef {
	return TourDef{Kind: TourWrite, Name: "write", Notifies: true, SendsMessage: true, DataAccess: verbs.AccessLocalWrite | verbs.AccessRemoteWrite, summary: writeSummary,
		build: func(role Role, n Notify, t Track) []Step { return writeTour(n).steps(role, rcTrackOf(t)) }, tools: writeTools}
}

// writeTools: perftest's WRITE bandwidth and rping over rdma_cm; on the
// manual track, the tools that bring the QP up by hand (ibv_rc_pingpong
// exchanges QPNs over TCP, rping -q makes its own QP).
func writeTools(a ToolArgs) []ToolCommand {
	if a.Track == TrackManual {
		return []ToolCommand{
			pingpong("ibv_rc_pingpong", a, text.Text{EN: "an RC QP moved RESET → INIT → RTR → RTS by hand, one SEND each way", ZH: "手动把 RC QP 推过 RESET → INIT → RTR → RTS，双方各 SEND 一次"}),
			rping(a, true),
		}
	}
	return []ToolCommand{
		perftest("ib_write_bw", a, text.Text{EN: "RDMA WRITE bandwidth over an rdma_cm connection", ZH: "基于 rdma_cm 连接的 RDMA WRITE 带宽"}, "-s", fmt.Sprint(a.Size)),
		rping(a, false),
	}
}
