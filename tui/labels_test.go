package tui

import (
	"context"
	"net/netip"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestEveryResultNameHasChinese runs every tour, track and lesson on the
// simulated NIC and checks that the name of every result a call shows is
// either a C name (kept, as the glossary keeps them) or has Chinese.
func TestEveryResultNameHasChinese(t *testing.T) {
	type run struct {
		notify steps.Notify
		track  steps.Track
		lesson string
	}
	var runs []run
	for _, n := range []steps.Notify{steps.NotifySend, steps.NotifyDoorbell, steps.NotifyImm} {
		runs = append(runs, run{n, steps.TrackCM, ""}, run{n, steps.TrackManual, ""})
	}
	for _, l := range steps.Lessons() {
		runs = append(runs, run{l.Notify, steps.TrackCM, l.Name})
	}
	names := map[string]bool{}
	var prose []string // values in English words with no Chinese
	for _, r := range runs {
		for _, kv := range resultsOf(t, r.notify, r.track, r.lesson) {
			names[kv.Name] = true
			if _, ok := resultValuesZH[kv.Value]; !ok && englishWords(kv) {
				prose = append(prose, kv.Name+" = "+kv.Value)
			}
		}
	}
	if len(prose) > 0 {
		t.Errorf("result values in English words (add them to resultValuesZH): %q", prose)
	}
	var missing []string
	for n := range names {
		if _, ok := resultNamesZH[n]; !ok && !isCName(n) {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("result names with no Chinese (add them to resultNamesZH): %q", missing)
	}
	if len(names) < 10 {
		t.Errorf("only %d result names seen: the tours did not run", len(names))
	}
}

// resultsOf runs one demo on one simulated NIC and returns every result
// its steps showed.
func resultsOf(t *testing.T, n steps.Notify, track steps.Track, lesson string) []steps.KV {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nic := sim.New(sim.Options{})
	srv, err := steps.NewSession(steps.Config{Role: steps.Server, Notify: n, Track: track, Lesson: lesson, Provider: nic,
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out []steps.KV
	collect := func(o steps.Outcome) { out = append(out, o.Results...) }
	for _, st := range srv.Steps() {
		o, err := srv.RunNext(ctx)
		collect(o)
		if err != nil {
			t.Fatalf("%s/%s server %s: %v", n, lesson, st.ID, err)
		}
		if strings.HasPrefix(st.ID, "listen") {
			break
		}
	}
	addr, err := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := steps.NewSession(steps.Config{Role: steps.Client, Notify: n, Track: track, Lesson: lesson, Provider: nic,
		Server: addr, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	sides := map[steps.Role]*steps.Session{steps.Server: srv, steps.Client: cli}
	for _, turn := range steps.DemoPlan(srv.Steps(), cli.Steps()) {
		s := sides[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		o, err := s.RunNext(ctx)
		collect(o)
		if err != nil {
			break // a failure ends the tour; its results are collected
		}
	}
	return out
}

// TestChineseLabelsOnScreen: in zh mode the screen's own words are
// Chinese, the result names included; in both mode a title that is the
// same in both languages shows once.
func TestChineseLabelsOnScreen(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []*steps.Session{r.srv}, steps.LangZH, 160, 50, "NO_COLOR=1")
	for range 4 { // up to listen
		press(t, m, "enter")
	}
	sc := ansi.Strip(m.render())
	for _, want := range []string{"监听地址 = ", "模拟网卡（sim0）"} {
		if !strings.Contains(sc, want) {
			t.Errorf("zh: no %q on screen:\n%s", want, sc)
		}
	}
	for _, bad := range []string{"listening on =", "SIMULATED NIC"} {
		if strings.Contains(sc, bad) {
			t.Errorf("zh: English %q on screen:\n%s", bad, sc)
		}
	}
	press(t, m, "l") // both
	if sc := ansi.Strip(m.render()); strings.Contains(sc, "CM id CM id") || strings.Contains(sc, "PD 保护域 PD") {
		t.Errorf("both: a title twice:\n%s", sc)
	}
	m.lang = steps.LangZH
	for _, c := range []struct{ why, want string }{
		{"chosen with --backend sim", "由 --backend sim 指定"},
		{"no real RDMA for 10.0.0.1: no device", "10.0.0.1 没有可用的真实 RDMA，改用模拟网卡：no device"},
	} {
		if got := m.backendWhy(c.why); got != c.want {
			t.Errorf("backendWhy(%q) = %q, want %q", c.why, got, c.want)
		}
	}
}

// englishWords says a result's value has English words a zh screen
// should not show: what is left after C names, numbers and addresses.
// The peer's bytes, C library strings (ibv_wc_status_str, strerror) and
// the --notify mode stay as they are.
func englishWords(kv steps.KV) bool {
	switch kv.Name {
	case "buffer", "notice", "notified by", "status", "returned", "ah_attr":
		return false
	}
	for _, w := range strings.FieldsFunc(kv.Value, func(r rune) bool { return strings.ContainsRune(" ()[]{},;:=", r) }) {
		if len(w) >= 3 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" && !isCName(w) && w != "rkey" {
			return true
		}
	}
	return false
}

// TestEventStatusInChinese: the CM id's last event keeps its librdmacm
// name, and its status reads as Chinese text does.
func TestEventStatusInChinese(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	for _, tt := range []struct {
		lang      steps.Lang
		want, not string
	}{
		{steps.LangZH, "RDMA_CM_EVENT_REJECTED（status 8）", " (status"},
		{steps.LangEN, "RDMA_CM_EVENT_REJECTED (status 8)", "（"},
	} {
		m := newTestModel(t, []*steps.Session{r.srv, r.cli}, tt.lang, 100, 30)
		lines, _ := m.cmidLines(steps.Snapshot{CMID: &steps.CMIDState{Local: "10.0.0.1:7471", LastEvent: "RDMA_CM_EVENT_REJECTED", EventStatus: 8}}, 80)
		got := ansi.Strip(strings.Join(lines, "\n"))
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%v: %q, want %q and no %q", tt.lang, got, tt.want, tt.not)
		}
	}
}

// TestErrorBannerShowsCodeAsThePanesDo: backticks around code in an
// explanation are not shown raw in the error banner (the explanation pane
// drops them too); without colour they stay, as they mark the code.
func TestErrorBannerShowsCodeAsThePanesDo(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	fail := &steps.Problem{What: steps.Text{EN: "nothing is listening at 10.0.0.2:7471", ZH: "10.0.0.2:7471 上没有程序在监听"},
		Fix: steps.Text{EN: "start `rdmatour server` there first", ZH: "先在那里启动 `rdmatour server`"}}
	for _, tt := range []struct {
		environ   []string
		want, not string
	}{
		{[]string{"TERM=xterm"}, "Start rdmatour server there first", "`"},
		{[]string{"NO_COLOR=1"}, "Start `rdmatour server` there first", "\x00"},
	} {
		m := newTestModel(t, []*steps.Session{r.srv, r.cli}, steps.LangEN, 200, 40, tt.environ...)
		m.errs[1] = fail
		got := ansi.Strip(strings.Join(m.errorBanner(200), "\n"))
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%v: %q, want %q and no %q", tt.environ, got, tt.want, tt.not)
		}
	}
}

// TestHelpDescribesTheLayoutOnScreen: the help's sentence on the panes
// fits the layout: tabs at 80×24, columns where there are columns.
func TestHelpDescribesTheLayoutOnScreen(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	for _, tt := range []struct {
		w, h      int
		lang      steps.Lang
		want, not string
	}{
		{80, 24, steps.LangEN, "the tabs below", "left"},
		{80, 24, steps.LangZH, "标签页", "左边"},
		{140, 45, steps.LangEN, "the server's column (left)", "tabs"},
	} {
		m := newTestModel(t, []*steps.Session{r.srv, r.cli}, tt.lang, tt.w, tt.h)
		got := strings.Join(strings.Fields(ansi.Strip(strings.Join(m.fullHelp(tt.w), " "))), " ")
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%d×%d %v: %q, want %q and no %q", tt.w, tt.h, tt.lang, got, tt.want, tt.not)
		}
	}
}

// TestTooSmallNoticeSaysItIsCut: at 10×3 the notice does not fit; its
// last row ends with "…".
func TestTooSmallNoticeSaysItIsCut(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []*steps.Session{r.srv, r.cli}, steps.LangEN, 10, 3)
	lines := m.tooSmall()
	var text []string
	for _, l := range lines {
		if s := strings.TrimSpace(ansi.Strip(l)); s != "" {
			text = append(text, s)
		}
	}
	if len(lines) != 3 || len(text) == 0 || !strings.HasSuffix(text[len(text)-1], "…") {
		t.Errorf("10×3: %q, want 3 rows, the last ending in …", lines)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 10 {
			t.Errorf("row %q is %d cells wide", l, w)
		}
	}
}
