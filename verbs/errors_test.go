package verbs_test

import (
	"strings"
	"syscall"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// TestErrnoNamedOnce: an errno is named once, by its symbol when it has
// one (the hostile review's C10 saw "too many open files (errno 24 errno
// 24)" when descriptors ran out).
func TestErrnoNamedOnce(t *testing.T) {
	for _, tc := range []struct {
		errno syscall.Errno
		name  string
		in    string
	}{
		{syscall.EMFILE, "EMFILE", "(errno 24 EMFILE)"},
		{syscall.EINVAL, "EINVAL", "(errno 22 EINVAL)"},
		{syscall.ENOMEM, "ENOMEM", "(errno 12 ENOMEM)"},
		{syscall.ENOTBLK, "errno 15", "(errno 15)"}, // not in the table
	} {
		if got := verbs.ErrnoName(tc.errno); got != tc.name {
			t.Errorf("ErrnoName(%d) = %q, want %q", int(tc.errno), got, tc.name)
		}
		msg := verbs.Errorf("rdma_bind_addr", tc.errno, "").Error()
		if !strings.Contains(msg, tc.in) || strings.Count(msg, "errno") != 1 {
			t.Errorf("Error() = %q, want %q with errno named once", msg, tc.in)
		}
	}
}
