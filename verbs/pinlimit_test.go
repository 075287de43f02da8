package verbs

import "testing"

func TestCapEffHas(t *testing.T) {
	for _, tt := range []struct {
		status string
		want   bool
	}{
		{"Name:\tx\nCapEff:\t000001ffffffffff\n", true},  // root
		{"Name:\tx\nCapEff:\t0000000000000000\n", false}, // an ordinary user
		{"Name:\tx\nCapEff:\t0000000000004000\n", true},  // CAP_IPC_LOCK alone
		{"Name:\tx\nCapEff:\t0000000000002000\n", false}, // CAP_NET_RAW alone
		{"Name:\tx\n", false},
		{"CapEff:\tnot hex\n", false},
	} {
		if got := capEffHas(tt.status, capIPCLock); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.status, got, tt.want)
		}
	}
}
