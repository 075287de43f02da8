package tui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
)

// The line the UI leaves on the terminal when it exits (the alternate
// screen is gone by then): what ran, how far, on which backend, and how
// it ended — so that after q the learner still knows where they were.

// summaryLine is that line for the last snapshots (taken before the
// sessions were closed) and Run's verdict, in lang.
func summaryLine(snaps []steps.Snapshot, verdict error, demo bool, lang steps.Lang) string {
	if len(snaps) == 0 {
		return ""
	}
	l := textLang(lang)
	t := func(en, zh string) string { return tr(lang, en, zh) }
	who := snaps[0].Role.String()
	if demo {
		who = "demo"
	}
	head := "rdmatour " + who
	if snaps[0].Lesson != "" {
		head += t(" (lesson ", "（课程 ") + snaps[0].Lesson + t(")", "）")
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
	ran := fmt.Sprintf(t("%s steps on %s", "%s 步，%s"), strings.Join(counts, ", "), backendName(snaps[0], lang))
	var te *TourError
	switch {
	case errors.As(verdict, &te):
		return fmt.Sprintf(t("%s: %s step %q failed after %s: %s", "%s：%s 的步骤「%s」失败，已完成 %s：%s"),
			head, te.Side, stepTitle(snaps, te.StepID, l), ran, te.Explain)
	case verdict != nil:
		at := ""
		for _, s := range snaps {
			if s.Next < len(s.Steps) && !s.Failed {
				at = s.Steps[s.Next].Title.In(l)
				break
			}
		}
		return fmt.Sprintf(t("%s: quit before the end, %s (next: %s); everything was released", "%s：中途退出，%s（下一步：%s）；所有资源都已释放"),
			head, ran, at)
	}
	end := fmt.Sprintf(t("%s: tour complete, %s", "%s：教程完成，%s"), head, ran)
	for _, s := range snaps {
		if r := s.Result; r != nil {
			end += fmt.Sprintf(t("; the server's buffer holds \"%s\" (via %s)", "；server 的 buffer 里是 \"%s\"（通过 %s）"), r.Message.String(), r.Via)
		}
	}
	return end
}

// backendName says where the tour ran: the device, and whether it was
// the simulated NIC.
func backendName(s steps.Snapshot, lang steps.Lang) string {
	dev := s.Backend
	if s.Device != nil {
		dev = s.Device.Info.Name
	}
	if s.Simulated {
		if s.Device == nil {
			dev = "sim0"
		}
		return tr(lang, "the simulated NIC ("+dev+", not real RDMA)", "模拟网卡（"+dev+"，非真实 RDMA）")
	}
	return dev + tr(lang, " (real RDMA)", "（真实 RDMA）")
}

// stepTitle is the title of the step with id in the first snapshot that
// has it (id itself if none does).
func stepTitle(snaps []steps.Snapshot, id, lang string) string {
	for _, s := range snaps {
		for _, st := range s.Steps {
			if st.ID == id {
				return st.Title.In(lang)
			}
		}
	}
	return id
}
