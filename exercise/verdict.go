package exercise

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
)

// Evidence is what check saw of one run of the learner's program against
// rdmatour's side: the program's end, and rdmatour's side as it ended
// (its steps and their completions, the CM events it got, its buffer).
type Evidence struct {
	// TimedOut: the program still ran at the time limit and was killed.
	TimedOut bool
	Limit    time.Duration
	// ExitCode is the program's exit status (-1 when killed).
	ExitCode int
	// LastLine is the last line the program wrote on stderr, escaped.
	LastLine string
	// Peer is rdmatour's side at the end of the run.
	Peer steps.Snapshot
	// Source is the learner's program as it was checked; Solution is the
	// reference solution, to point at where the two differ.
	Source, Solution string
	// Counters is how much each of the device's hw_counters moved during
	// the run (nil: not read); CountersOf names what they count ("rxe0
	// port 1": a port's counters count every QP on it).
	Counters   map[string]uint64
	CountersOf string
}

// Verdict is check's judgement: pass or fail, a sentence, and the
// evidence it rests on, each a line.
type Verdict struct {
	Pass     bool
	Says     text.Text
	Evidence []text.Text
}

// Judge turns the evidence into a verdict. A pass needs all three: the
// program exited 0, rdmatour's side finished its tour without an error,
// and (where rdmatour is the server) the message landed in its buffer.
func (e Exercise) Judge(ev Evidence) Verdict {
	v := Verdict{Evidence: append(programEvidence(ev), peerEvidence(e, ev)...)}
	v.Evidence = append(v.Evidence, wireEvidence(e, ev.Peer)...)
	v.Evidence = append(v.Evidence, counterEvidence(ev)...)
	v.Evidence = append(v.Evidence, remoteInfoEvidence(e, ev.Peer)...)
	landed := e.Role == steps.Server || ev.Peer.Tour != steps.TourWrite || messageLanded(ev.Peer, ev.Source)
	v.Pass = !ev.TimedOut && ev.ExitCode == 0 && ev.Peer.Done && !ev.Peer.Failed && landed
	switch {
	case v.Pass:
		v.Says = text.Text{EN: "pass: " + e.Name + " works, judged from rdmatour's side of the connection",
			ZH: "通过：" + e.Name + " 能用了，这是从 rdmatour 那一端的连接判断的"}
	case ev.TimedOut:
		v.Says = text.Text{EN: fmt.Sprintf("fail: your program was still running after %s and was stopped; the last thing rdmatour's side saw is below", ev.Limit),
			ZH: fmt.Sprintf("未通过：你的程序过了 %s 还在运行，已被结束；rdmatour 那一端最后看到的情况在下面", ev.Limit)}
	default:
		v.Says = text.Text{EN: "fail: the evidence below says where it went wrong", ZH: "未通过：下面的证据说明了哪里出了错"}
	}
	if !v.Pass {
		v.Evidence = append(v.Evidence, e.whereEvidence(ev.Source, ev.Solution)...)
	}
	return v
}

// programEvidence is how the learner's program ended.
func programEvidence(ev Evidence) []text.Text {
	var out []text.Text
	switch {
	case ev.TimedOut:
		out = append(out, text.Text{EN: fmt.Sprintf("your program: killed at the %s limit (a wait that never ended)", ev.Limit),
			ZH: fmt.Sprintf("你的程序：到 %s 的时间限制被结束（某个等待一直没有结束）", ev.Limit)})
	default:
		out = append(out, text.Text{EN: fmt.Sprintf("your program: exit status %d", ev.ExitCode), ZH: fmt.Sprintf("你的程序：退出状态 %d", ev.ExitCode)})
	}
	if ev.LastLine != "" {
		out = append(out, text.Text{EN: "your program's last words: " + ev.LastLine, ZH: "你的程序最后一句输出：" + ev.LastLine})
	}
	return out
}

// peerEvidence is what rdmatour's side saw: the step it ended in and
// how, and its buffer.
func peerEvidence(e Exercise, ev Evidence) []text.Text {
	p := ev.Peer
	side := text.Text{EN: "rdmatour's " + p.Role.String(), ZH: "rdmatour 的 " + p.Role.String()}
	var out []text.Text
	switch {
	case p.Done && !p.Failed:
		out = append(out, text.Text{EN: side.EN + ": finished its tour, every step succeeded", ZH: side.ZH + "：走完了教程，每一步都成功"})
	case p.Failed:
		st := lastRun(p)
		out = append(out, text.Text{EN: fmt.Sprintf("%s: step %s (%s) failed: %s", side.EN, st.ID, st.Title.EN, failure(st, p).EN),
			ZH: fmt.Sprintf("%s：步骤 %s（%s）失败：%s", side.ZH, st.ID, st.Title.In(text.ZH), failure(st, p).In(text.ZH))})
	case p.Next < len(p.Steps):
		st := p.Steps[p.Next]
		out = append(out, text.Text{EN: fmt.Sprintf("%s: still at step %s (%s), %d of %d steps done", side.EN, st.ID, st.Title.EN, p.Next, len(p.Steps)),
			ZH: fmt.Sprintf("%s：停在步骤 %s（%s），%d/%d 步已完成", side.ZH, st.ID, st.Title.In(text.ZH), p.Next, len(p.Steps))})
	}
	if p.Role == steps.Server && p.Tour == steps.TourWrite {
		out = append(out, bufferEvidence(p, ev.Source)...)
	}
	return out
}

// lastRun is the last step that ran (the one a failed tour ended in).
func lastRun(p steps.Snapshot) steps.StepStatus {
	for i := len(p.Steps) - 1; i >= 0; i-- {
		if p.Steps[i].Outcome != nil {
			return p.Steps[i]
		}
	}
	if len(p.Steps) > 0 {
		return p.Steps[0]
	}
	return steps.StepStatus{ID: "(none)"}
}

func failure(st steps.StepStatus, p steps.Snapshot) text.Text {
	if st.Outcome != nil && st.Outcome.Failure.EN != "" {
		return st.Outcome.Failure
	}
	return text.Same(p.Err)
}

// messageLanded says whether the server's buffer holds the message: the
// WRITE put bytes there, and they are what the learner's program put in
// buf (when its source says).
func messageLanded(p steps.Snapshot, src string) bool {
	if p.Result == nil || len(p.Result.Message) == 0 {
		return false
	}
	want, known := sentMessage(src)
	return !known || landedText(p.Result.Message) == want
}

// sentMessage is the message the exported client puts in buf before its
// WRITE, read from its source.
func sentMessage(src string) (string, bool) {
	m := messageLine.FindStringSubmatch(src)
	if m == nil {
		return "", false
	}
	return m[1], true
}

var messageLine = regexp.MustCompile(`snprintf\(buf, BUF_SIZE, "%s", "([^"\\]*)"\);`)

// landedText is the buffer up to its first NUL.
func landedText(b []byte) string {
	if n := strings.IndexByte(string(b), 0); n >= 0 {
		return string(b[:n])
	}
	return string(b)
}

// bufferEvidence is the server's buffer: what landed, escaped, and
// whether it is the message the learner's program sent.
func bufferEvidence(p steps.Snapshot, src string) []text.Text {
	out := []text.Text{bufferContents(p)}
	want, known := sentMessage(src)
	if known && p.Result != nil && len(p.Result.Message) > 0 && landedText(p.Result.Message) != want {
		shown := privdata.PeerBytes(want).String()
		out = append(out, text.Text{EN: fmt.Sprintf("that is not the message your program put in buf (\"%s\", %d bytes with its NUL)", shown, len(want)+1),
			ZH: fmt.Sprintf("这不是你的程序放进 buf 的消息（\"%s\"，连同 NUL 共 %d 字节）", shown, len(want)+1)})
	}
	return out
}

func bufferContents(p steps.Snapshot) text.Text {
	data := p.Data.Bytes
	if p.Result != nil { // the buffer as the tour ended, before teardown freed it
		data = p.Result.Message
	}
	if n := strings.IndexByte(string(data), 0); n >= 0 {
		data = data[:n]
	}
	if len(data) == 0 {
		return text.Text{EN: "the server's buffer: empty (nothing was written into it)", ZH: "server 的 buffer：空的（没有任何东西写进去）"}
	}
	shown := `"` + privdata.PeerBytes(data[:min(len(data), 64)]).String() + `"`
	if len(data) > 64 {
		shown += "…"
	}
	return text.Text{EN: fmt.Sprintf("the server's buffer: %d bytes, %s", len(data), shown), ZH: fmt.Sprintf("server 的 buffer：%d 字节，%s", len(data), shown)}
}

// stepComment is export-c's comment before each step's statements.
var stepComment = regexp.MustCompile(`^    /\* ([a-z0-9-]+): `)

// WhereToLook finds, in the learner's source, the line the exercise's
// change is still on (the mistake, or the TODO) and the step it is in,
// from the exported program's structure: the step comments. ok is false
// when the change is no longer there as written.
func (e Exercise) WhereToLook(src string) (line int, step string, ok bool) {
	for _, ed := range e.Task {
		first := firstNewLine(ed)
		at := strings.Index(src, first)
		if first == "" || at < 0 {
			continue
		}
		line = strings.Count(src[:at], "\n") + 1
		lines := strings.Split(src[:at+len(first)], "\n") // the found line may be the step's comment
		for i := len(lines) - 1; i >= 0; i-- {
			if m := stepComment.FindStringSubmatch(lines[i]); m != nil {
				return line, m[1], true
			}
		}
		return line, "", true
	}
	return 0, "", false
}

// firstNewLine is the first line the edit writes that was not there
// before (an insertion keeps its anchor line), trimmed; "" for none.
func firstNewLine(ed Edit) string {
	for _, l := range strings.Split(ed.To, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(ed.From, l) {
			return l
		}
	}
	return ""
}

// whereEvidence is the line to look at: the exercise's change where it
// is still there, else the first line where the program differs from
// the reference solution.
func (e Exercise) whereEvidence(src, solution string) []text.Text {
	line, step, ok := e.WhereToLook(src)
	if ok {
		return []text.Text{{EN: fmt.Sprintf("where to look: %s line %d, in step %s", e.FileName(), line, step),
			ZH: fmt.Sprintf("从这里看起：%s 第 %d 行，步骤 %s", e.FileName(), line, step)}}
	}
	d, ok := firstDifference(src, solution)
	if !ok {
		return nil
	}
	if d.missing {
		return []text.Text{{EN: fmt.Sprintf("where to look: step %s of %s lacks a statement a working program has there", d.step, e.FileName()),
			ZH: fmt.Sprintf("从这里看起：%s 的步骤 %s 少了一条能用的程序在那里有的语句", e.FileName(), d.step)}}
	}
	return []text.Text{{EN: fmt.Sprintf("where to look: %s line %d, in step %s, differs from a working program at: %s", e.FileName(), d.line, d.step, d.fragment),
		ZH: fmt.Sprintf("从这里看起：%s 第 %d 行，步骤 %s，和能用的程序不同的地方：%s", e.FileName(), d.line, d.step, d.fragment)}}
}
