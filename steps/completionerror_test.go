package steps_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// A failed completion reads as Chinese on a Chinese screen: the roster's
// expected error and the call pane quote it (the work requests' names
// stay verbs' own).
func TestCompletionErrorInChinese(t *testing.T) {
	for _, tc := range []struct{ what, zh string }{
		{"RDMA_WRITE completion", "RDMA_WRITE 的完成"},
		{"doorbell RDMA_WRITE completion", "doorbell RDMA_WRITE 的完成"},
		{"FETCH_AND_ADD completion", "FETCH_AND_ADD 的完成"},
		{"the notification's RECV completion", "通知用的 RECV 的完成"},
		{"the attendee's work request", "学员的 work request"},
		{"UD receive", "UD 接收"},
		{"UD SEND or the answer's RECV", "UD SEND 或应答的 RECV"},
		{"UD SEND", "UD SEND"},
	} {
		err := &steps.CompletionError{What: tc.what, WC: verbs.WC{Status: verbs.WCRemAccessErr, WRID: 2}}
		if got := err.WhatIn(text.ZH); got != tc.zh {
			t.Errorf("%q in Chinese: %q, want %q", tc.what, got, tc.zh)
		}
		if got := err.WhatIn(text.EN); got != tc.what {
			t.Errorf("%q in English: %q", tc.what, got)
		}
		if zh := steps.ExplainWhatIn(err, text.ZH); !strings.HasPrefix(zh, tc.zh+"：状态") {
			t.Errorf("%q explained in Chinese: %q", tc.what, zh)
		}
	}
}
