package tui

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// fingerprint writes everything reachable from v, following pointers,
// maps and slices (map entries sorted, so equal states print equally).
// Sessions are named by address only: they run on goroutines of their
// own, and View never reads them anyway.
func fingerprint(b *strings.Builder, v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if v.Type() == reflect.TypeFor[*steps.Session]() || ownedElsewhere(v.Type()) || seen[v.Pointer()] {
			fmt.Fprintf(b, "&%x", v.Pointer())
			return
		}
		// seen holds the pointers on the way here only (cycles), so a
		// pointer reached twice prints the same both times.
		seen[v.Pointer()] = true
		b.WriteString("&")
		fingerprint(b, v.Elem(), seen)
		delete(seen, v.Pointer())
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		fingerprint(b, v.Elem(), seen)
	case reflect.Struct:
		b.WriteString("{")
		for i := range v.NumField() {
			b.WriteString(v.Type().Field(i).Name + ":")
			fingerprint(b, v.Field(i), seen)
			b.WriteString(" ")
		}
		b.WriteString("}")
	case reflect.Slice, reflect.Array:
		fmt.Fprintf(b, "[%d:", v.Len())
		for i := range v.Len() {
			fingerprint(b, v.Index(i), seen)
			b.WriteString(",")
		}
		b.WriteString("]")
	case reflect.Map:
		var entries []string
		for it := v.MapRange(); it.Next(); {
			var e strings.Builder
			fingerprint(&e, it.Key(), seen)
			e.WriteString("=")
			fingerprint(&e, it.Value(), seen)
			entries = append(entries, e.String())
		}
		sort.Strings(entries)
		fmt.Fprintf(b, "map%v", entries)
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		fmt.Fprintf(b, "%x", v.Pointer())
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	case reflect.Bool:
		fmt.Fprint(b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		fmt.Fprint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		fmt.Fprint(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		fmt.Fprint(b, v.Float())
	default:
		fmt.Fprintf(b, "<%s>", v.Kind())
	}
}

// ownedElsewhere says a pointer leads into a backend (the NIC, its
// connections and devices a Config names): their goroutines write it, the
// model only holds it, and reading it here would race with them.
func ownedElsewhere(t reflect.Type) bool {
	return strings.HasPrefix(t.Elem().PkgPath(), "github.com/rdmatour/rdmatour/verbs")
}

func state(m *model) string {
	var b strings.Builder
	fingerprint(&b, reflect.ValueOf(m), map[uintptr]bool{})
	return b.String()
}

// TestViewIsPure calls View twice in every layout and proves that the
// model is unchanged, down to every pane's scroll offset and every cache.
func TestViewIsPure(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, steps.LangBoth, 120, 40)
	runUntil(t, m, 1, "poll-write") // data in the buffer, packets on the wire
	single := newTestModel(t, []steps.Runner{r.cli}, steps.LangZH, 80, 24)
	for _, tt := range []struct {
		name  string
		m     *model
		setup func(m *model)
	}{
		{"demo 120x40", m, nil},
		{"demo 80x24 narrow", m, func(m *model) { m.Update(tea.WindowSizeMsg{Width: 80, Height: 24}) }},
		{"demo scrolled", m, func(m *model) { m.Update(keyMsg("down")); m.Update(keyMsg("tab")) }},
		{"demo help", m, func(m *model) { m.Update(keyMsg("?")) }},
		{"demo presenter 100x30", m, func(m *model) {
			m.Update(keyMsg("?"))
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		}},
		{"demo zoomed", m, func(m *model) { m.Update(keyMsg("z")) }},
		{"client 80x24", single, nil},
		{"client 160x50", single, func(m *model) { m.Update(tea.WindowSizeMsg{Width: 160, Height: 50}) }},
		{"client lang", single, func(m *model) { m.Update(keyMsg("l")) }},
	} {
		if tt.setup != nil {
			tt.setup(tt.m)
		}
		before := state(tt.m)
		first := tt.m.View().Content
		second := tt.m.View().Content
		if after := state(tt.m); after != before {
			t.Errorf("%s: View changed the model", tt.name)
		}
		if first != second {
			t.Errorf("%s: two Views of one model differ", tt.name)
		}
		if !strings.Contains(first, "rdmatour") && !strings.Contains(first, "demo") {
			t.Errorf("%s: no header in\n%s", tt.name, first)
		}
	}
}

// assertPure checks that two Views leave m as it was and draw the same.
func assertPure(t *testing.T, name string, m *model) string {
	t.Helper()
	before := state(m)
	first := m.View().Content
	if second := m.View().Content; first != second {
		t.Errorf("%s: two Views of one model differ", name)
	}
	if state(m) != before {
		t.Errorf("%s: View changed the model", name)
	}
	return first
}

// TestViewIsPureInTheStatesThatUsedToWork: a lesson's line (its summary
// was looked up by name on every frame), a step waiting on the peer with
// a key pressed meanwhile (the note asked the session for the peer's
// tour on every frame), and the end banner (its sentence was put
// together on every frame). Update reads these once; View only draws.
func TestViewIsPureInTheStatesThatUsedToWork(t *testing.T) {
	lesson := lessonDemo(t, "bad-rkey", steps.LangBoth, 120, 40)
	if s := assertPure(t, "lesson", lesson); !strings.Contains(s, "bad-rkey") {
		t.Errorf("lesson: no lesson line in\n%s", s)
	}

	r := newRig(t, steps.NotifySend)
	srv := newTestModel(t, []steps.Runner{r.srv}, steps.LangEN, 100, 30)
	for range 4 {
		press(t, srv, "enter") // up to listen
	}
	_, cmd := srv.Update(keyMsg("enter")) // get-connect-request waits for a client
	if cmd == nil || !srv.run.on || !srv.run.onPeer {
		t.Fatal("the waiting step did not start on the peer")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	srv.Update(keyMsg("enter"))
	if s := assertPure(t, "waiting", srv); !strings.Contains(flat(s), "still waiting for the client") {
		t.Errorf("waiting: no note in\n%s", s)
	}
	srv.quit()
	<-done
	srv.shutdown()

	r2 := newRig(t, steps.NotifySend)
	demo := newTestModel(t, []steps.Runner{r2.srv, r2.cli}, steps.LangZH, 120, 40)
	for demo.planPos < len(demo.plan) && demo.end.err == nil {
		press(t, demo, "enter")
	}
	if s := assertPure(t, "end", demo); !strings.Contains(flat(s), "server 的 buffer 里现在是") {
		t.Errorf("end: no result sentence in\n%s", s)
	}
}

// TestRootModelIsSmall: the root model has at most 20 fields, each of
// its parts at most 25 (issue 18: a part owns one job).
func TestRootModelIsSmall(t *testing.T) {
	if n := reflect.TypeFor[model]().NumField(); n > 20 {
		t.Errorf("model has %d fields, want at most 20", n)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[runState](), reflect.TypeFor[autoRun](), reflect.TypeFor[screenState](),
		reflect.TypeFor[tourEnd](), reflect.TypeFor[lookBack](), reflect.TypeFor[workshopModel](), reflect.TypeFor[pane.Page]()} {
		if n := typ.NumField(); n > 25 {
			t.Errorf("%s has %d fields, want at most 25", typ, n)
		}
	}
}
