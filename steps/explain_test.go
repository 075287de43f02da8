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
		err := explainBind(&verbs.Error{Func: "rdma_bind_addr", Errno: tt.errno}, netip.MustParseAddrPort(tt.addr))
		if got := ExplainIn(err, "en"); !strings.Contains(got, tt.want) {
			t.Errorf("%s %v: %q, want it to contain %q", tt.addr, tt.errno, got, tt.want)
		}
	}
}
