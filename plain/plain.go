// Package plain is the plain-text front end: it drives one session, or
// the demo's two, step by step and prints each step's title, its page,
// the C call it made and what it changed, for a terminal without the TUI
// or for logs and tests. It may import steps, termtext and docs; never
// tui.
package plain

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// Runner prints the tour as text: for each step its title, the
// explanation, then (after Enter, unless auto) the C call it made with the
// actual values and its results.
type Runner struct {
	out     io.Writer
	in      *lineFeed // nil: run straight through
	lang    text.Lang
	docs    func(lang, id string) (string, error)
	explain bool // print the explanation pages
	// pauseAt stops before the step with this ID until a line arrives on
	// stdin (or ctx ends), even in --auto mode: for workshops and tests.
	pauseAt string
	stdin   io.Reader
}

// Options configure a Runner.
type Options struct {
	// Out receives the text; the Runner serialises its writes. The caller
	// guards it (termtext.NewGuard) when it is a terminal.
	Out  io.Writer
	Lang text.Lang
	// Docs returns the page (Markdown) of a step or lesson ID in a language.
	Docs func(lang, id string) (string, error)
	// Explain prints the pages before each step and around a lesson.
	Explain bool
	// PauseAt stops before the step with this ID until a line arrives on
	// Stdin, even when the steps run straight through.
	PauseAt string
	Stdin   io.Reader
	// Prompt waits for Enter on Stdin before each step (a person at the
	// keyboard); otherwise the steps run straight through.
	Prompt bool
}

// New returns a Runner printing to o.Out.
func New(o Options) *Runner {
	p := &Runner{out: &lineWriter{w: o.Out}, lang: o.Lang, docs: o.Docs, explain: o.Explain,
		pauseAt: o.PauseAt, stdin: o.Stdin}
	if o.Prompt {
		p.in = newLineFeed(o.Stdin)
	}
	return p
}

// TurnedAway prints that a one-client server turned a second client away
// (a steps.Session's OnTurnAway hook).
func (p *Runner) TurnedAway(who, reason string) {
	fmt.Fprintf(p.out, "[server] %s\n", text.Text{EN: "turned " + who + " away: " + reason,
		ZH: "拒绝了 " + who + "：" + reason}.Joined(p.lang))
}

// pause waits for a line on stdin or for ctx to end.
func (p *Runner) pause(ctx context.Context, id string) error {
	fmt.Fprintf(p.out, "  %s\n", text.Text{EN: "paused before " + id + ": press Enter to continue", ZH: "停在 " + id + " 之前：按回车继续"}.Joined(p.lang))
	if p.in != nil {
		_, err := p.in.next(ctx)
		return err
	}
	line := make(chan struct{})
	go func() {
		bufio.NewReader(p.stdin).ReadString('\n')
		close(line)
	}()
	select {
	case <-line:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run drives one session to the end. It returns nil only when the tour
// succeeded; the session is always closed.
func (p *Runner) Run(ctx context.Context, s steps.Runner) (err error) {
	defer func() {
		calls, cerr := s.Close()
		if calls != "" {
			fmt.Fprintf(p.out, "\n-- teardown --\n%s\n", indent(calls))
		}
		if err == nil && cerr != nil {
			err = fmt.Errorf("teardown: %w", cerr)
		}
	}()
	snap := s.Snapshot()
	side := s.Config().Role.String()
	fmt.Fprintf(p.out, "rdmatour %s — %s\n", side, p.backendLabel(snap))
	p.lessonHeader(snap)
	if err := p.predict(ctx, s); err != nil {
		return err
	}
	total := len(s.Steps())
	for s.Next() < total {
		if err := p.step(ctx, s, s.Next()+1, total, false); err != nil {
			return err
		}
	}
	p.finish(s)
	return nil
}

// step runs the next step of s: its title and explanation, a pause if
// asked for, then the C it made, its results and the state it changed.
// n of total numbers it on screen.
func (p *Runner) step(ctx context.Context, s steps.Runner, n, total int, demo bool) error {
	st := s.Steps()[s.Next()]
	fmt.Fprintf(p.out, "\n[%d/%d] %s: %s\n", n, total, st.Side, st.Title.Joined(p.lang))
	if string(st.ID) == p.pauseAt && p.stdin != nil {
		if err := p.pause(ctx, string(st.ID)); err != nil {
			return err
		}
	}
	if p.explain {
		for _, l := range p.lang.Each() {
			if page, ok := p.stepPage(s, s.Next(), l); ok {
				fmt.Fprintln(p.out, indent(termtext.PlainPage(l.String(), string(st.ID), page, plainPageWidth)))
			}
		}
	}
	if p.in != nil {
		prompt := text.Text{EN: "press Enter to run it", ZH: "按回车执行"}
		if s.Replaying() {
			prompt = text.Text{EN: "press Enter to see it as recorded", ZH: "按回车查看录制的结果"}
		}
		fmt.Fprintf(p.out, "  %s%s\n  %s", text.Text{EN: "next: ", ZH: "下一步："}.In(p.lang), strings.ReplaceAll(st.Call, "\n", "\n        "), prompt.Joined(p.lang))
		ok, rerr := p.in.next(ctx)
		if rerr != nil {
			return rerr
		}
		if !ok {
			p.in = nil // input closed: run the rest straight through
		}
	}
	idx := s.Next()
	out, err := p.runStep(ctx, s, st, demo)
	p.printOutcome(out)
	// The state as the session kept it right after the step: the same
	// snapshot --record writes, so a replay prints the same line.
	snap, ok := s.StepSnapshot(idx)
	if !ok {
		snap = s.Snapshot()
	}
	p.printState(snap)
	p.afterLessonStep(s, idx)
	if err != nil {
		for _, l := range p.lang.Each() {
			fmt.Fprintf(p.out, "  %s%s\n", text.Text{EN: "ERROR: ", ZH: "错误："}.In(l), steps.ExplainIn(err, l))
		}
	}
	return err
}

// finish prints how the tour ended: each side's result, labelled by
// the side it happened on (the first side's config says what to try
// next). The buffer and the notice are the peer's bytes:
// privdata.PeerBytes prints them escaped.
func (p *Runner) finish(sides ...steps.Runner) {
	first := sides[0]
	fmt.Fprintln(p.out)
	for _, s := range sides {
		p.printResult(s.Snapshot())
	}
	var snaps []steps.Snapshot
	for _, s := range sides {
		snaps = append(snaps, s.Snapshot())
	}
	if tally := steps.TallyText(snaps...).Joined(p.lang); tally != "" {
		fmt.Fprintln(p.out, tally)
	}
	fmt.Fprintf(p.out, "\n%s\n", text.Text{EN: "tour complete", ZH: "教程完成"}.Joined(p.lang))
	if snap := first.Snapshot(); p.explain && snap.Lesson != "" {
		for _, l := range p.lang.Each() {
			if page, ok := p.lessonPage(l, "lesson-"+snap.Lesson, true); ok {
				fmt.Fprintln(p.out, indent(termtext.PlainPage(l.String(), "lesson-"+snap.Lesson, page, plainPageWidth)))
			}
		}
	}
	fmt.Fprintf(p.out, "%s\n", guide.NextToTry(first.Config()).Joined(p.lang))
	if tools := guide.RealTools(first.Config(), first.Snapshot()); tools.EN != "" {
		fmt.Fprintf(p.out, "%s\n", tools.Joined(p.lang))
	}
}

// printResult prints snap's result, if its side has one, under its
// side's label: the write tour's server says how it learned of the
// write and what landed; every other result is its tour's sentence.
func (p *Runner) printResult(snap steps.Snapshot) {
	r := snap.Result
	if r == nil {
		return
	}
	side := "[" + snap.Role.String() + "] "
	if !tourNotifies(r.Tour) {
		fmt.Fprintf(p.out, "%s%s\n", side, r.Sentence().Joined(p.lang))
		return
	}
	fmt.Fprintf(p.out, "%s%s\n", side, text.Text{EN: fmt.Sprintf("learned of the write via %s (%s)", r.Via, r.Notice.String()),
		ZH: fmt.Sprintf("通过 %s 得知写入完成（%s）", r.Via, r.Notice.String())}.Joined(p.lang))
	fmt.Fprintf(p.out, "%s%s%s\n", side, text.Text{EN: "RDMA-written buffer: ", ZH: "RDMA 写入的 buffer："}.Joined(p.lang), r.Message.String())
}

func (p *Runner) printOutcome(out steps.Outcome) {
	if out.Call != "" {
		fmt.Fprintf(p.out, "  C: %s\n", strings.ReplaceAll(out.Call, "\n", "\n     "))
	}
	for _, kv := range out.Results {
		// The same words as the TUI's call pane: in both, the English.
		fmt.Fprintf(p.out, "     %s = %s\n", kv.Name.In(p.lang), kv.Value.In(p.lang))
	}
	for _, l := range guide.MeasureChart(out.Measured, p.lang, 72) {
		fmt.Fprintf(p.out, "     %s\n", l)
	}
	if note := out.Note.Joined(p.lang); note != "" {
		fmt.Fprintf(p.out, "  → %s\n", note)
	}
	if out.Expected {
		for _, l := range p.lang.Each() {
			fmt.Fprintf(p.out, "  %s%s\n", text.Text{EN: "EXPECTED ERROR (the point of this lesson): ", ZH: "预期错误 —— 本课的重点："}.In(l), out.Failure.In(l))
		}
	}
}

// backendLabel is the header's "backend: ..." in the run's language(s),
// in the TUI's words.
func (p *Runner) backendLabel(s steps.Snapshot) string {
	label := text.Same(s.Backend)
	if s.Simulated {
		label = text.Text{EN: "SIMULATED NIC (sim0) — not real RDMA", ZH: "模拟网卡（sim0）—— 非真实 RDMA"}
	}
	line := text.Text{EN: "backend: " + label.EN, ZH: "后端：" + label.In(text.ZH)}
	if s.Why.EN != "" {
		line.EN += " — " + s.Why.EN
		line.ZH += " —— " + s.Why.In(text.ZH)
	}
	return line.Joined(p.lang)
}

// plainPageWidth is how wide an explanation page is printed (indented by
// 4, it fits an 80-column terminal).
const plainPageWidth = 76

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// RunDemo drives both sides in one process in steps.DemoPlan's order.
func (p *Runner) RunDemo(ctx context.Context, srv, cli steps.Runner) (err error) {
	defer func() {
		for _, s := range []steps.Runner{cli, srv} {
			if _, cerr := s.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("teardown: %w", cerr)
			}
		}
	}()
	fmt.Fprintf(p.out, "rdmatour demo — %s\n", p.backendLabel(srv.Snapshot()))
	p.lessonHeader(srv.Snapshot())
	for _, s := range []steps.Runner{cli, srv} {
		if err := p.predict(ctx, s); err != nil {
			return err
		}
	}
	sides := map[steps.Role]steps.Runner{steps.Server: srv, steps.Client: cli}
	plan := steps.DemoPlan(srv.Steps(), cli.Steps())
	for n, turn := range plan {
		if err := p.step(ctx, sides[turn.Side], n+1, len(plan), true); err != nil {
			return err
		}
	}
	p.finish(srv, cli)
	return nil
}

// lessonHeader introduces the lesson being run, with its page.
func (p *Runner) lessonHeader(snap steps.Snapshot) {
	page := "lesson-" + snap.Lesson
	switch {
	case snap.Lesson != "":
		fmt.Fprintf(p.out, "%s\n", text.Text{EN: "lesson " + snap.Lesson + ": " + snap.LessonTitle.EN,
			ZH: "课程 " + snap.Lesson + "：" + snap.LessonTitle.In(text.ZH)}.Joined(p.lang))
	case snap.Track == steps.TrackManual:
		fmt.Fprintln(p.out, text.Text{EN: "track: manual QP bring-up (ibv_create_qp + ibv_modify_qp)", ZH: "路线：手动把 QP 推到 RTS（ibv_create_qp + ibv_modify_qp）"}.Joined(p.lang))
		page = "lesson-manual-qp"
	default:
		return
	}
	if !p.explain {
		return
	}
	for _, l := range p.lang.Each() {
		if md, ok := p.lessonPage(l, page, false); ok {
			fmt.Fprintln(p.out, indent(termtext.PlainPage(l.String(), page, md, plainPageWidth)))
		}
	}
}

// printState prints the live state a step may have changed, read back
// from the device: the QP state (ibv_query_qp), the port and the GID in
// use, and the hardware counters that moved.
func (p *Runner) printState(snap steps.Snapshot) {
	var parts []string
	if q := snap.QP; q != nil && q.Query == "" && q.Num != 0 {
		parts = append(parts, fmt.Sprintf("QP 0x%x %s", q.Num, q.Attr.State))
	}
	if d := snap.Device; d != nil {
		port := fmt.Sprintf("%s port %d %s, MTU %d", d.Info.Name, d.PortNum, d.Port.State, d.Port.ActiveMTU)
		if d.GID != "" {
			port += ", GID " + d.GID
		}
		parts = append(parts, port)
	}
	if len(snap.CounterDelta) > 0 {
		names := make([]string, 0, len(snap.CounterDelta))
		for k := range snap.CounterDelta {
			names = append(names, k)
		}
		sort.Strings(names)
		var moved []string
		for _, k := range names {
			moved = append(moved, fmt.Sprintf("%s +%d", k, snap.CounterDelta[k]))
		}
		parts = append(parts, text.Text{EN: "counters: ", ZH: "计数器："}.In(p.lang)+strings.Join(moved, " "))
	}
	if len(parts) > 0 {
		fmt.Fprintf(p.out, "  %s%s\n", text.Text{EN: "state: ", ZH: "状态："}.In(p.lang), strings.Join(parts, " · "))
	}
}

// tourNotifies says the tour has a notify step, so Result.Via and Notice
// mean something (the catalogue's word).
func tourNotifies(kind steps.TourKind) bool {
	d, _ := steps.TourOf(kind)
	return d.Notifies
}
