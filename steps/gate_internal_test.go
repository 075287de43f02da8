package steps

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

func TestEventQueue(t *testing.T) {
	q := NewEventQueue()
	q.Put(verbs.CMEvent{Type: verbs.EventEstablished})
	// A deadline already past still sees a queued event (as
	// rdma_get_cm_event with a short deadline does).
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if ev, err := q.get(past); err != nil || ev.Type != verbs.EventEstablished {
		t.Fatalf("get with a past deadline = %v, %v; want the queued ESTABLISHED", ev.Type, err)
	}
	if _, err := q.get(past); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("empty queue, past deadline: %v", err)
	}
	done := make(chan verbs.CMEvent)
	go func() { ev, _ := q.get(context.Background()); done <- ev }()
	time.Sleep(10 * time.Millisecond)
	q.Put(verbs.CMEvent{Type: verbs.EventDisconnected})
	if ev := <-done; ev.Type != verbs.EventDisconnected {
		t.Fatalf("a waiting get got %v", ev.Type)
	}
	boom := errors.New("channel gone")
	q.Put(verbs.CMEvent{Type: verbs.EventRejected})
	q.Close(boom)
	q.Put(verbs.CMEvent{Type: verbs.EventEstablished}) // after close: dropped
	if ev, err := q.get(context.Background()); err != nil || ev.Type != verbs.EventRejected {
		t.Fatalf("an event queued before close must still come: %v, %v", ev.Type, err)
	}
	if _, err := q.get(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("after close: %v, want %v", err, boom)
	}
}

func TestRejectedBecause(t *testing.T) {
	pad := func(s string) []byte { return append([]byte(s), make([]byte, 148-len(s))...) }
	for _, tt := range []struct {
		name    string
		private []byte
		what    string
		fix     string
	}{
		{"busy", pad(BusyReason + " (10.0.0.2); one client at a time"), "the server rejected the connection: server busy with another client (10.0.0.2)", "one client at a time"},
		{"full", pad(FullReason(50)), "the server rejected the connection: server full: 50 attendees", "--max-attendees"},
		{"no reason", nil, "the server rejected the connection", "Look at the server's screen"},
		{"hostile", pad("\x1b]0;owned\a"), `rejected the connection: \e]0;owned\a`, "Look at the server's screen"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := rejectedBecause(errors.New("REJ"), tt.private)
			got := ExplainIn(err, "en")
			if !strings.Contains(got, tt.what) || !strings.Contains(got, tt.fix) || strings.ContainsAny(got, "\x1b\a\x00") {
				t.Errorf("got %q; want %q and %q, escaped", got, tt.what, tt.fix)
			}
			if zh := ExplainIn(err, "zh"); !strings.Contains(zh, "server 拒绝了连接") {
				t.Errorf("zh: %q", zh)
			}
		})
	}
}
