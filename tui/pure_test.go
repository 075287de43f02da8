package tui

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
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
		if v.Type() == reflect.TypeFor[*steps.Session]() || seen[v.Pointer()] {
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
