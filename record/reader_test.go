package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// serverLines is a valid server recording, split into lines (no newlines).
func serverLines(t testing.TB) []string {
	t.Helper()
	files, _ := liveTour(t, demoConfig())
	return strings.Split(strings.TrimSuffix(string(files[0]), "\n"), "\n")
}

// edit decodes line i as JSON, lets f change it and encodes it back.
func edit(t testing.TB, lines []string, i int, f func(m map[string]any)) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]string(nil), lines...)
	out[i] = string(b)
	return out
}

func join(lines []string) string { return strings.Join(lines, "\n") + "\n" }

// TestDecodeRejectsDamagedFiles: every kind of damage is reported with the
// file's name, the line it is on and what is wrong.
func TestDecodeRejectsDamagedFiles(t *testing.T) {
	ok := serverLines(t)
	n := len(ok) // the end line is line n
	firstSide := func(m map[string]any) map[string]any { return m["sides"].([]any)[0].(map[string]any) }
	cases := []struct {
		name     string
		file     string
		line     int
		contains string
	}{
		{"empty", "", 1, "the file is empty"},
		{"not json", "hello\n", 1, "not an rdmatour recording"},
		{"another format", `{"format":"pcap","version":1}` + "\n", 1, "not an rdmatour recording"},
		{"newer version", join(edit(t, ok, 0, func(m map[string]any) { m["version"] = 3 })), 1, "format version 3; this rdmatour reads versions 1 to 2"},
		{"unknown role", join(edit(t, ok, 0, func(m map[string]any) { firstSide(m)["role"] = "router" })), 1, `unknown role "router"`},
		{"unknown lesson", join(edit(t, ok, 0, func(m map[string]any) { firstSide(m)["lesson"] = "nope" })), 1, "nope"},
		{"no sides", join(edit(t, ok, 0, func(m map[string]any) { m["sides"] = []any{} })), 1, "found 0 sides"},
		{"cut mid-line", join(ok)[:len(join(ok))-len(ok[n-1])/2], n, "the line is cut off"},
		{"no end line", join(ok[:n-1]), n, "ends before the server side's end line"},
		{"cut after a few steps", join(ok[:5]), 6, "ends before the server side's end line"},
		{"garbage line", join(append(append(append([]string(nil), ok[:2]...), "{garbage"), ok[2:]...)), 3, "not valid JSON"},
		{"a step missing", join(append(append([]string(nil), ok[:2]...), ok[3:]...)), 3, "step index 2, expected 1"},
		{"a step twice", join(append(append(append([]string(nil), ok[:3]...), ok[2]), ok[3:]...)), 4, "step index 1, expected 2"},
		{"unknown side", join(edit(t, ok, 2, func(m map[string]any) { m["side"] = "client" })), 3, `side "client" is not one the header describes`},
		{"unknown kind", join(edit(t, ok, 2, func(m map[string]any) { m["kind"] = "note" })), 3, `unknown line kind "note"`},
		{"step id differs from header", join(edit(t, ok, 2, func(m map[string]any) { m["id"] = "listen" })), 3, `step "listen", but the header's step 2 is`},
		{"line after the end", join(append(append([]string(nil), ok...), ok[2])), n + 1, "after the server side's end line"},
		{"two values on a line", join(append(append(append([]string(nil), ok[:2]...), ok[2]+" {}"), ok[3:]...)), 3, "not valid JSON"},
		{"huge buffer", join(edit(t, ok, n-2, func(m map[string]any) {
			m["snapshot"].(map[string]any)["Data"] = map[string]any{"len": 4097}
		})), n - 1, "a buffer of 4097 bytes"},
		{"changed bytes outside", join(edit(t, ok, n-2, func(m map[string]any) {
			m["snapshot"].(map[string]any)["Data"] = map[string]any{"len": 8, "changed": []any{map[string]any{"off": 6, "n": 4, "at": "2026-01-01T00:00:00Z"}}}
		})), n - 1, "outside the 8-byte buffer"},
		{"more packets shown than recorded", join(edit(t, ok, 2, func(m map[string]any) { m["packets_shown"] = 5 })), 3, "shows 5 packets, but only 0 were recorded"},
		{"a terminal escape in a C line", join(edit(t, ok, 2, func(m map[string]any) {
			m["outcome"].(map[string]any)["Call"] = "rdma_create_id(ec, &listener, NULL, RDMA_PS_TCP); \x1b]0;pwned\x07"
		})), 3, "could control the terminal"},
		{"a bidi override in a title", join(edit(t, ok, 0, func(m map[string]any) {
			m["sides"].([]any)[0].(map[string]any)["tour"].([]any)[0].(map[string]any)["title"] = map[string]any{"EN": "abc\u202edef"}
		})), 1, "U+202E"},
		{"a wrong type", join(edit(t, ok, 2, func(m map[string]any) { m["index"] = "one" })), 3, "the step line is damaged"},
		{"a line too long", join(ok[:1]) + strings.Repeat("x", maxLine+1) + "\n", 2, "longer than 16 MiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tc.file), "rec.jsonl")
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LineError", err)
			}
			if le.File != "rec.jsonl" || le.Line != tc.line || !strings.Contains(le.Reason, tc.contains) {
				t.Errorf("got %q, want rec.jsonl line %d: …%s…", err, tc.line, tc.contains)
			}
		})
	}
}

// TestReplayFollowsTheRecordedTour: a file recorded by an rdmatour whose
// tour differed (a step renamed here) replays with the recorded steps.
func TestReplayFollowsTheRecordedTour(t *testing.T) {
	lines := serverLines(t)
	lines = edit(t, lines, 2, func(m map[string]any) { m["id"] = "x-step" })
	lines = edit(t, lines, 0, func(m map[string]any) {
		step := m["sides"].([]any)[0].(map[string]any)["tour"].([]any)[1].(map[string]any)
		step["id"] = "x-step"
		step["title"] = map[string]any{"EN": "A step of another version", "ZH": "另一个版本的步骤"}
	})
	rec, err := Decode(strings.NewReader(join(lines)), "old.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := rec.Runners()
	if err != nil {
		t.Fatal(err)
	}
	st := sessions[0].Steps()[1]
	if st.ID != "x-step" || st.Title.EN != "A step of another version" {
		t.Errorf("step 2 is %q %q, want the recorded one", st.ID, st.Title.EN)
	}
	for sessions[0].Next() < len(sessions[0].Steps()) {
		if _, err := sessions[0].RunNext(context.Background()); err != nil {
			t.Fatalf("replaying the recorded tour: %v", err)
		}
	}
}

// FuzzDecode: no input makes the decoder panic or hang; whatever it
// accepts encodes to a file it accepts again, unchanged. The input is
// what follows a valid header (the step and end lines): small seeds keep
// the fuzzer's minimising fast, and the header has its own table above.
func FuzzDecode(f *testing.F) {
	// A recorded file, not a live tour: each fuzz worker runs this setup,
	// and a simulated tour under coverage instrumentation is slow.
	file, err := os.ReadFile("../testdata/replay/rxe-send-server.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
	header, end := lines[0]+"\n", lines[len(lines)-1]+"\n"
	f.Add([]byte(end))
	f.Add([]byte(lines[1] + "\n" + end))
	f.Add([]byte(lines[1] + "\n" + lines[2] + "\n"))
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append([]byte(header), body...)
		rec, err := Decode(bytes.NewReader(data), "fuzz")
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		var once bytes.Buffer
		if err := Encode(&once, rec); err != nil {
			t.Fatalf("an accepted recording does not encode: %v", err)
		}
		back, err := Decode(bytes.NewReader(once.Bytes()), "again")
		if err != nil {
			t.Fatalf("the re-encoded recording is refused: %v", err)
		}
		var twice bytes.Buffer
		if err := Encode(&twice, back); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("encoding is not stable (%v)", err)
		}
		if _, err := back.Runners(); err != nil {
			t.Fatalf("an accepted recording does not replay: %v", err)
		}
	})
}
