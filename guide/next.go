package guide

import (
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// NextToTry says, at the end of a tour, what to run next: a lesson of
// this tour, the other notify modes and the manual track (for a tour
// that notifies: the write tour), the other tours, export-c — leaving out what this run already
// was and what this tour refuses.
func NextToTry(cfg steps.Config) text.Text {
	var en, zh []string
	kind := effectiveTour(cfg)
	next, hasLessons := nextLesson(kind, cfg.LessonName())
	switch {
	case !hasLessons: // the ud tour has none
	case cfg.Lesson == nil:
		en = append(en, "a lesson, the tour with one deliberate mistake: --lesson "+next.Name+" on both sides ("+next.Title.EN+"; rdmatour lessons lists them all)")
		zh = append(zh, "一节课程，即故意犯一个错的教程：两端都加 --lesson "+next.Name+"（"+next.Title.ZH+"；rdmatour lessons 列出全部）")
	default:
		en = append(en, "the next lesson: --lesson "+next.Name+" ("+next.Title.EN+"; rdmatour lessons lists them all)")
		zh = append(zh, "下一课：--lesson "+next.Name+"（"+next.Title.ZH+"；rdmatour lessons 列出全部）")
	}
	if notifies(kind) && cfg.Lesson == nil {
		others := otherNotifies(cfg.Notify)
		en = append(en, "another way to tell the server ("+strings.Join(others, " or ")+")")
		zh = append(zh, "换一种通知 server 的方式（"+strings.Join(others, " 或 ")+"）")
		if cfg.Track != steps.TrackManual {
			en = append(en, "the QP brought up by hand (--track manual)")
			zh = append(zh, "手动把 QP 推到 RTS（--track manual）")
		}
	}
	if cfg.Lesson == nil {
		en = append(en, "another tour on both sides ("+otherTours(kind)+")")
		zh = append(zh, "两端换一个教程（"+otherTours(kind)+"）")
	}
	exp := experiment(cfg)
	en, zh = append(en, exp.EN), append(zh, exp.ZH)
	export := exportCommand(cfg.Role, kind)
	en = append(en, "the whole tour as one C program ("+export+")")
	zh = append(zh, "把整个教程导出成一个 C 程序（"+export+"）")
	return text.Text{EN: "Try next: " + strings.Join(en, "; ") + ".", ZH: "接下来可以试试：" + strings.Join(zh, "；") + "。"}
}

// NextToTryShort is NextToTry as the commands alone, for one banner line.
func NextToTryShort(cfg steps.Config) text.Text {
	var cmds []string
	kind := effectiveTour(cfg)
	if next, ok := nextLesson(kind, cfg.LessonName()); ok {
		cmds = append(cmds, "--lesson "+next.Name, "rdmatour lessons")
	}
	if cfg.Lesson == nil {
		if notifies(kind) {
			cmds = append(cmds, otherNotifies(cfg.Notify)...)
			if cfg.Track != steps.TrackManual {
				cmds = append(cmds, "--track manual")
			}
		}
		cmds = append(cmds, otherTours(kind))
	}
	cmds = append(cmds, "rdmatour export-c")
	list := strings.Join(cmds, " · ")
	if len(cfg.Edits) > 0 { // the run was an experiment: first, undo it
		edits := strings.Join(cfg.Edits.Strings(), " ")
		return text.Text{EN: "Try next: your edits restored (leave out --edit " + edits + ") · " + list,
			ZH: "接下来可以试试：还原你的修改（去掉 --edit " + edits + "）· " + list}
	}
	return text.Text{EN: "Try next: " + list, ZH: "接下来可以试试：" + list}
}

// effectiveTour is the tour cfg runs: a lesson's own tour, else --tour.
func effectiveTour(cfg steps.Config) steps.TourKind {
	if cfg.Lesson != nil {
		return cfg.Lesson.Tour
	}
	return cfg.Tour
}

// nextLesson is the lesson of tour kind to try after current ("" or a
// lesson of another tour: the tour's first); false when the tour has none.
func nextLesson(kind steps.TourKind, current string) (steps.Lesson, bool) {
	tour, _ := steps.TourOf(kind)
	mine := tour.Lessons()
	if len(mine) == 0 {
		return steps.Lesson{}, false
	}
	for i, l := range mine {
		if l.Name == current {
			return mine[(i+1)%len(mine)], true
		}
	}
	return mine[0], true
}

// notifies says the tour's client tells the server in one of the
// --notify ways (the write tour): --notify and --track manual apply.
func notifies(kind steps.TourKind) bool {
	tour, _ := steps.TourOf(kind)
	return tour.Notifies
}

func otherNotifies(n steps.Notify) []string {
	var others []string
	for _, o := range []steps.Notify{steps.NotifySend, steps.NotifyDoorbell, steps.NotifyImm} {
		if o != n {
			others = append(others, "--notify "+o.String())
		}
	}
	return others
}

// otherTours is the --tour values other than kind, as one option
// ("--tour read|atomic|ud").
func otherTours(kind steps.TourKind) string {
	var others []string
	for _, d := range steps.Tours() {
		if d.Kind != kind {
			others = append(others, d.Name)
		}
	}
	return "--tour " + strings.Join(others, "|")
}

func exportCommand(role steps.Role, kind steps.TourKind) string {
	cmd := "rdmatour export-c " + role.String()
	if kind != steps.TourWrite {
		cmd += " --tour " + kind.String()
	}
	return cmd
}

// experiment is Try next's word on edits: after a run with edits, how to
// put them back; else, how to make one (docs guide-experiment).
func experiment(cfg steps.Config) text.Text {
	if len(cfg.Edits) == 0 {
		return text.Text{EN: "your own experiment: change a call before it runs with --edit STEP.FIELD=VALUE (rdmatour edits lists the fields)",
			ZH: "你自己的实验：用 --edit STEP.FIELD=VALUE 在调用运行前改它的参数（rdmatour edits 列出字段）"}
	}
	edits := strings.Join(cfg.Edits.Strings(), " ")
	return text.Text{EN: "the same run with your edits restored: leave out --edit " + edits + " (or give another value)",
		ZH: "把你的修改还原后再跑一次：去掉 --edit " + edits + "（或换一个值）"}
}
