package tui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// The line the UI leaves on the terminal when it exits (the alternate
// screen is gone by then): what ran, how far, on which backend, and how
// it ended — so that after q the learner still knows where they were.

// summaryLine is that line for the last snapshots (taken before the
// sessions were closed) and Run's verdict, in lang. replay: the sessions
// played a recording (nothing ran, nothing was released).
func summaryLine(snaps []steps.Snapshot, verdict error, demo, replay bool, lang text.Lang) string {
	if len(snaps) == 0 {
		return ""
	}
	l := lang
	who := snaps[0].Role.String()
	if demo {
		who = "demo"
	}
	head := "rdmatour " + who
	if replay {
		head = text.Text{EN: "rdmatour replay of a ", ZH: "rdmatour 回放 "}.In(lang) + who
	}
	if snaps[0].Lesson != "" {
		head += text.Text{EN: " (lesson ", ZH: "（课程 "}.In(lang) + snaps[0].Lesson + text.Text{EN: ")", ZH: "）"}.In(lang)
	}
	var counts []string
	for _, s := range snaps {
		n := 0
		for _, st := range s.Steps {
			if st.State == steps.Succeeded {
				n++
			}
		}
		c := fmt.Sprintf("%d/%d", n, len(s.Steps))
		if demo {
			c = s.Role.String() + " " + c
		}
		counts = append(counts, c)
	}
	ran := fmt.Sprintf(text.Text{EN: "%s steps on %s", ZH: "%s 步，%s"}.In(lang), strings.Join(counts, ", "), backendName(snaps[0], lang))
	var te *TourError
	switch {
	case errors.As(verdict, &te):
		// Why it failed follows on its own line (the exit message).
		return fmt.Sprintf(text.Text{EN: "%s: %s step %q failed after %s", ZH: "%s：%s 的步骤「%s」失败，已完成 %s"}.In(lang),
			head, te.Side, stepTitle(snaps, te.StepID, l), ran)
	case verdict != nil && replay:
		return fmt.Sprintf(text.Text{EN: "%s: left the replay before the end, %s (%s)", ZH: "%s：回放中途退出，%s（%s）"}.In(lang),
			head, ran, quitAt(snaps, lang))
	case verdict != nil:
		// That everything was released follows on its own line too.
		return fmt.Sprintf(text.Text{EN: "%s: quit before the end, %s (%s)", ZH: "%s：中途退出，%s（%s）"}.In(lang),
			head, ran, quitAt(snaps, lang))
	}
	end := fmt.Sprintf(text.Text{EN: "%s: tour complete, %s", ZH: "%s：教程完成，%s"}.In(lang), head, ran)
	if tally := steps.TallyText(snaps...).In(lang); tally != "" {
		end += text.Text{EN: "; ", ZH: "；"}.In(lang) + tally
	}
	// Each side's result in its tour's own words (the catalogue's
	// sentence), labelled by the side it happened on.
	for _, s := range snaps {
		if r := s.Result; r != nil {
			if sentence := r.Sentence().In(lang); sentence != "" {
				end += text.Text{EN: "; ", ZH: "；"}.In(lang) + s.Role.String() + text.Text{EN: ": ", ZH: "："}.In(lang) + sentence
			}
		}
	}
	return end
}

// quitAt names where a quit left the tour: the step that was waiting
// when q or Ctrl-C ended it (its wait is cancelled, so the snapshot
// may mark it failed), else the next step to run.
func quitAt(snaps []steps.Snapshot, lang text.Lang) string {
	l := lang
	for _, s := range snaps {
		if s.Running && s.Next < len(s.Steps) {
			return text.Text{EN: "stopped while running: ", ZH: "停在正在执行的一步："}.In(lang) + s.Steps[s.Next].Title.In(l)
		}
	}
	for _, s := range snaps {
		if s.Next < len(s.Steps) {
			if s.Steps[s.Next].State == steps.FailedState {
				return text.Text{EN: "stopped while running: ", ZH: "停在正在执行的一步："}.In(lang) + s.Steps[s.Next].Title.In(l)
			}
			return text.Text{EN: "next: ", ZH: "下一步："}.In(lang) + s.Steps[s.Next].Title.In(l)
		}
	}
	return text.Text{EN: "nothing left to run", ZH: "已没有待执行的步骤"}.In(lang)
}

// backendName says where the tour ran: the device, and whether it was
// the simulated NIC.
func backendName(s steps.Snapshot, lang text.Lang) string {
	dev := s.Backend
	if s.Device != nil {
		dev = s.Device.Info.Name
	}
	if s.Simulated {
		if s.Device == nil {
			dev = "sim0"
		}
		return text.Text{EN: "the simulated NIC (" + dev + ", not real RDMA)", ZH: "模拟网卡（" + dev + "，非真实 RDMA）"}.In(lang)
	}
	return dev + text.Text{EN: " (real RDMA)", ZH: "（真实 RDMA）"}.In(lang)
}

// stepTitle is the title of the step with id in the first snapshot that
// has it (id itself if none does).
func stepTitle(snaps []steps.Snapshot, id string, lang text.Lang) string {
	for _, s := range snaps {
		for _, st := range s.Steps {
			if st.ID == id {
				return st.Title.In(lang)
			}
		}
	}
	return id
}
