package main

import (
	"strings"
	"testing"
)

// TestExplainCommand: `rdmatour explain` as a process — exit 0 with
// every reading, 1 for an unknown code with the closest names, 2 for no
// code or a bad flag.
func TestExplainCommand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"help", []string{"explain", "--help"}, 0, "Usage: rdmatour explain CODE", ""},
		{"ambiguous number", []string{"explain", "12"}, 0, "12 has 4 readings", ""},
		{"words without quotes", []string{"explain", "transport", "retry", "counter", "exceeded"}, 0, `wc.status 12 = IBV_WC_RETRY_EXC_ERR ("transport retry counter exceeded")`, ""},
		{"a CM status", []string{"explain", "status 28", "--lang", "zh"}, 0, "对端的应用拒绝了连接（rdma_reject）", ""},
		{"a syndrome in both languages", []string{"explain", "--lang", "both", "0x62"}, 0, "亲眼看看：rdmatour demo --lesson bad-rkey", ""},
		{"unknown", []string{"explain", "IBV_WC_RETRY_EXEC_ERR"}, 1, "", "did you mean IBV_WC_RETRY_EXC_ERR"},
		{"no code", []string{"explain"}, 2, "", "give the code"},
		{"bad flag", []string{"explain", "12", "--lang", "fr"}, 2, "", "fr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runBinary(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("rdmatour %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s\nwant stdout with %q, stderr with %q", strings.Join(tc.args, " "), code, tc.code, stdout, stderr, tc.stdout, tc.stderr)
			}
		})
	}
}
