package steps

import (
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

func TestExplainBindByErrno(t *testing.T) {
	tests := []struct {
		addr  string
		errno syscall.Errno
		want  string
	}{
		{"0.0.0.0:7471", syscall.EADDRINUSE, "port 7471 is already in use"},
		{"0.0.0.0:7471", syscall.EADDRNOTAVAIL, "already taken by an RDMA listener"},
		{"10.9.9.9:7471", syscall.EADDRNOTAVAIL, "10.9.9.9 is not an address of this machine"},
		{"10.9.9.9:7471", syscall.EACCES, "permission denied"},
	}
	for _, tt := range tests {
		err := ExplainBind(&verbs.Error{Func: "rdma_bind_addr", Errno: tt.errno}, netip.MustParseAddrPort(tt.addr))
		if got := ExplainIn(err, "en"); !strings.Contains(got, tt.want) {
			t.Errorf("%s %v: %q, want it to contain %q", tt.addr, tt.errno, got, tt.want)
		}
	}
}

// TestExplainEventInChinese: an unexpected CM event is explained in
// Chinese through and through; the event names stay as librdmacm spells
// them.
func TestExplainEventInChinese(t *testing.T) {
	cfg := Config{Server: netip.MustParseAddrPort("10.0.0.2:7471")}
	err := unexpectedEvent(verbs.CMEvent{Type: verbs.EventRejected, Status: cmRejInvalidServiceID}, verbs.EventEstablished, cfg)
	zh := ExplainIn(err, "zh")
	want := "（收到 RDMA_CM_EVENT_REJECTED（status 8），预期是 RDMA_CM_EVENT_ESTABLISHED）"
	if !strings.Contains(zh, want) || strings.Contains(zh, "got ") || strings.Contains(zh, "expected") {
		t.Errorf("zh: %q, want it to contain %q and no English", zh, want)
	}
	if en := ExplainIn(err, "en"); !strings.Contains(en, "(got RDMA_CM_EVENT_REJECTED (status 8), expected RDMA_CM_EVENT_ESTABLISHED)") {
		t.Errorf("en: %q", en)
	}
}

// TestExplainFixStartsASentence: in English the fix follows ". " as a
// sentence, capitalised; a fix that starts with a flag stays as written.
func TestExplainFixStartsASentence(t *testing.T) {
	for _, tt := range []struct{ fix, want string }{
		{"start `rdmatour server` there first", "it failed. Start `rdmatour server` there first"},
		{"--port picks another port", "it failed. --port picks another port"},
	} {
		err := problem(nil, Text{"it failed", "失败了"}, Text{tt.fix, "修正"})
		if got := ExplainIn(err, "en"); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
		if got := ExplainIn(err, "zh"); got != "失败了。修正" {
			t.Errorf("zh: %q", got)
		}
	}
}
