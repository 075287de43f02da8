package workshop

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// The roster's "observed" words, in both languages: the roster, its
// event lines and the printed roster are in the instructor's language;
// the results file keeps the English.

// observed says in words what the attendee's last step reached (empty
// for a step the roster does not report), from its milestones: the room
// never asks which step it was.
func observed(tour steps.TourDef, p steps.Progress) text.Text {
	last, res := p.Last, p.Result
	switch {
	case last.Reaches(steps.MilestoneConnected):
		return text.Text{EN: "connected", ZH: "已连接"}
	case last.Reaches(steps.MilestoneLanded|steps.MilestoneNotified) && (tour.Notifies || tour.SharedCounter) && res == nil:
		return text.Text{} // no result: nothing landed to report
	case last.Reaches(steps.MilestoneNotified):
		return text.Text{EN: fmt.Sprintf("%d B landed, notified by %s: %s", len(res.Message), res.Via, res.Message),
			ZH: fmt.Sprintf("%d 字节已写入，由 %s 通知：%s", len(res.Message), res.Via, res.Message)}
	case last.Reaches(steps.MilestoneLanded) && tour.SharedCounter:
		return atomicsWords(p.Atomics, res.Message.String())
	case last.Reaches(steps.MilestoneLanded):
		return text.Text{EN: "READ the message and hung up", ZH: "READ 了消息，然后挂断"}
	case last.Reaches(steps.MilestoneDisconnected) && p.PeerHungUp:
		return text.Text{EN: "disconnected (the attendee hung up)", ZH: "已断开（学员先挂断）"}
	case last.Reaches(steps.MilestoneDisconnected):
		return text.Text{EN: "disconnected (the server hung up)", ZH: "已断开（server 先挂断）"}
	case last.Reaches(steps.MilestoneDone):
		return text.Text{EN: "finished: everything freed", ZH: "完成：资源全部释放"}
	}
	return text.Text{}
}

// atomicsWords are an atomic room's attendee's end: what its atomics
// found, as this side's wire saw them, and the shared counter.
func atomicsWords(seen, counter string) text.Text {
	if seen == "" { // a real device this process cannot capture on (loopback, no CAP_NET_RAW)
		return text.Text{EN: "atomics done: this side's wire shows no packets, so not what they found; room's " + counter,
			ZH: "原子操作完成：本端线上看不到包，所以不知道它们读到了什么；教室的 " + counter}
	}
	return text.Text{EN: "atomics done: " + seen + "; room's " + counter, ZH: "原子操作完成：" + seen + "；教室的 " + counter}
}

// expectedWords are a finished lesson run's last words: its error was the
// lesson's, met as the lesson meant, so the attendee saw what it shows.
// The lesson is the attendee's, or, for one that named none (the seed's
// client), the room's that this side ran.
func expectedWords(p steps.Progress, roomLesson string) text.Text {
	lesson := p.PeerLesson
	if lesson == "" {
		lesson = roomLesson
	}
	what := text.Text{EN: "expected error ✓ (lesson " + lesson + "): ", ZH: "预期错误 ✓（课程 " + lesson + "）："}
	if p.Refusal != "" {
		what.EN += "this side answered their request with " + p.Refusal + "; "
		what.ZH += "本端用 " + p.Refusal + " 回答了他们的请求；"
	}
	what.EN += p.Expected.EN
	what.ZH += p.Expected.In(text.ZH)
	return what
}

// errorWords are a connection the room could not set up.
func errorWords(err error) text.Text {
	return text.Text{EN: "error: " + err.Error(), ZH: "错误：" + steps.ExplainIn(err, text.ZH)}
}

// droppedWords are an attendee the room let go: why, and the room's
// advice.
func droppedWords(why error) text.Text {
	return text.Text{EN: withAdvice("dropped: "+why.Error(), text.EN), ZH: withAdvice("已断开："+why.Error(), text.ZH)}
}

// failedWords are an attendee whose tour failed, with the NAK this side
// sent them when there was one: what their QP went to ERR for.
func failedWords(err error, nak string) text.Text {
	en, zh := "error: ", "错误："
	if nak != "" {
		en += "this side answered their request with " + nak + "; "
		zh += "本端用 " + nak + " 回答了他们的请求；"
	}
	return text.Text{EN: en + attendeeFailure(err, text.EN), ZH: zh + attendeeFailure(err, text.ZH)}
}
