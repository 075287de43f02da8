package verbs

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseWireFaults(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want WireFaults
		err  string // part of the error, "" for none
	}{
		{"", WireFaults{}, ""},
		{"drop=2", WireFaults{Drop: []int{2}}, ""},
		{"drop=4,1 drop=1", WireFaults{Drop: []int{1, 4}}, ""},
		{"loss=5% seed=7", WireFaults{LossPercent: 5, Seed: 7}, ""},
		{"loss=100", WireFaults{LossPercent: 100}, ""},
		{"dup=3;reorder=1", WireFaults{Dup: []int{3}, Reorder: []int{1}}, ""},
		{"delay=2:300ms", WireFaults{Delay: []WireDelay{{2, 300 * time.Millisecond}}}, ""},
		{"drop=0", WireFaults{}, "not a packet number"},
		{"drop=x", WireFaults{}, "not a packet number"},
		{"drop", WireFaults{}, "NAME=VALUE"},
		{"loss=101%", WireFaults{}, "percentage"},
		{"loss=NaN", WireFaults{}, "percentage"},
		{"seed=3", WireFaults{}, "seed= goes with loss"},
		{"delay=2", WireFaults{}, "N:DURATION"},
		{"delay=2:1h", WireFaults{}, "at most 10s"},
		{"delay=2:-1s", WireFaults{}, "above 0"},
		{"flip=3", WireFaults{}, "unknown fault"},
	} {
		got, err := ParseWireFaults(tt.in)
		if tt.err != "" {
			var we *WireFaultsError
			if !errors.As(err, &we) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want a WireFaultsError with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		back, err := ParseWireFaults(got.String())
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Errorf("%q: String %q reads back as %+v, %v", tt.in, got.String(), back, err)
		}
	}
}
