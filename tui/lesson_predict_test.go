package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// The lesson asks first: the question and the lesson page up to it, no
// answer anywhere on screen; Enter runs nothing until keys 1-4 chose; the
// step that answers says whether the pick was right, and its page says
// what happened instead of the correct run.
func TestLessonPredictFlowByKeys(t *testing.T) {
	for _, tc := range []struct {
		lang                                              text.Lang
		question, choice, verdict, happened, predictFirst string
	}{
		{text.EN, "How does the RDMA WRITE complete?", "2) IBV_WC_REM_ACCESS_ERR (remote access error)", "Your prediction, IBV_WC_REM_ACCESS_ERR", "What happened", "predict first: keys 1-4"},
		{text.ZH, "这个 RDMA WRITE 的完成状态是什么？", "2) IBV_WC_REM_ACCESS_ERR (remote access error)", "你的预测「IBV_WC_REM_ACCESS_ERR", "发生了什么", "先猜一猜：按 1-4"},
	} {
		m := lessonDemoAsking(t, "bad-rkey", tc.lang, 160, 50)
		screen := ansi.Strip(m.render())
		for _, want := range []string{tc.question, tc.choice, tc.predictFirst} {
			if !strings.Contains(screen, want) {
				t.Errorf("%s: the question screen lacks %q:\n%s", tc.lang, want, screen)
			}
		}
		// No answer before the prediction: not in the lesson line (the
		// summary), not in the lesson page (its later sections), and no
		// raw Markdown in the lesson line.
		lessonLine := ansi.Strip(m.lessonLine(160))
		if strings.Contains(lessonLine, "remote access error") || strings.Contains(lessonLine, "`") {
			t.Errorf("%s: lesson line gives the answer or shows Markdown: %q", tc.lang, lessonLine)
		}
		if strings.Contains(screen, "0x62") {
			t.Errorf("%s: the NAK syndrome (the answer) is on screen before the prediction", tc.lang)
		}
		// Enter runs nothing while the question is open; 5 is no choice.
		next := m.snaps[1].Next
		press(t, m, "enter")
		press(t, m, "5")
		if m.run.on || m.snaps[1].Next != next || m.snaps[1].Prediction.Picked != -1 {
			t.Fatalf("%s: a step ran or a pick was made before 1-4", tc.lang)
		}
		press(t, m, "2") // the client's question
		if p := m.snaps[1].Prediction; p.Picked != 1 {
			t.Fatalf("%s: key 2 picked %d", tc.lang, p.Picked)
		}
		answerPredictions(t, m) // the server's
		if strings.Contains(ansi.Strip(m.lessonLine(160)), "remote access error (") {
			t.Errorf("%s: summary shown before the answer", tc.lang)
		}

		// The client's poll-write page before it runs keeps the answer back.
		runUntil(t, m, 1, "post-write")
		ss := steps.StepStatus{}
		for _, st := range m.snaps[1].Steps {
			if st.ID == "poll-write" {
				ss = st
			}
		}
		if !ss.LessonStep {
			t.Fatalf("%s: poll-write is not marked as the lesson's step", tc.lang)
		}
		runUntil(t, m, 1, "poll-write")
		screen = ansi.Strip(m.render())
		for _, want := range []string{tc.happened, tc.verdict, map[text.Lang]string{text.EN: "✓ Your prediction", text.ZH: "✓ 你的预测"}[tc.lang]} {
			if !strings.Contains(screen, want) {
				t.Errorf("%s: after poll-write the screen lacks %q:\n%s", tc.lang, want, screen)
			}
		}
		if strings.Contains(screen, "status=IBV_WC_SUCCESS") {
			t.Errorf("%s: the page still describes the correct run after the error:\n%s", tc.lang, screen)
		}
	}
}

// After bad-rkey's error the timeline draws the client's SEND as never
// sent (no arrow reaches the server) and shows the server's NAK.
func TestTimelineDrawsFlushedSendAndNAK(t *testing.T) {
	m := lessonDemo(t, "bad-rkey", text.EN, 160, 50)
	runUntil(t, m, 1, "poll-notify")
	lines := m.timelineLines(50)
	var send, nak string
	for i, l := range lines {
		l = ansi.Strip(l)
		if strings.Contains(l, "SEND ✗") {
			send = l + " / " + ansi.Strip(strings.Join(lines[i+1:min(i+3, len(lines))], " / "))
		}
		if strings.Contains(l, " NAK ") {
			nak = l
		}
	}
	if send == "" || strings.ContainsAny(send, "▶◀") || !strings.Contains(send, "never sent") {
		t.Errorf("flushed SEND drawn as %q:\n%s", send, ansi.Strip(strings.Join(lines, "\n")))
	}
	if nak == "" || !strings.Contains(nak, "▶") {
		t.Errorf("no NAK from the server:\n%s", ansi.Strip(strings.Join(lines, "\n")))
	}
}
