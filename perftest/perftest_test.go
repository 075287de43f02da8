package perftest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The tables below are ib_write_lat's and ib_write_bw's as perftest printed
// them on rxe0 in the QEMU guest (tabs included).
func TestParsePerftest(t *testing.T) {
	cases := []struct {
		name, out string
		want      map[string]string
		wantErr   bool
	}{
		{name: "ib_write_lat", out: " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n" +
			" 8       20000          12.57          3997.50      14.18    \t       18.30       \t62.48  \t\t104.59  \t\t277.01 \n",
			want: map[string]string{"#bytes": "8", "t_typical[usec]": "14.18", "t_avg[usec]": "18.30", "99% percentile[usec]": "104.59", "99.9% percentile[usec]": "277.01"}},
		{name: "ib_write_bw", out: "---\n #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n" +
			" 65536      5000             61.36              37.17  \t\t   0.000595\n---\n",
			want: map[string]string{"#iterations": "5000", "BW peak[MB/sec]": "61.36", "BW average[MB/sec]": "37.17", "MsgRate[Mpps]": "0.000595"}},
		{name: "no table", out: "Couldn't connect to 10.0.2.15:18515\n", wantErr: true},
		{name: "short row", out: " #bytes #iterations    t_min[usec]\n 8 20000\n", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			row, err := Parse(c.out)
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, want error %v", err, c.wantErr)
			}
			for k, v := range c.want {
				if row[k] != v {
					t.Errorf("%q = %q, want %q (row %v)", k, row[k], v, row)
				}
			}
		})
	}
}

// RunPair with stand-in commands: a client that fails until the server
// has "listened" (made a file) is tried again; one that never succeeds
// fails the pair with both outputs; a server that never exits is killed
// after its grace.
func TestRunPair(t *testing.T) {
	quick := Timing{Settle: 50 * time.Millisecond, Tries: 4, ServerGrace: 2 * time.Second}
	cases := []struct {
		name           string
		server, client string // sh -c scripts; $D is a directory of the case's own
		timing         Timing
		wantErr        string
		wantClient     string
	}{
		{name: "client succeeds at once", server: "echo srv", client: "echo ok", timing: quick, wantClient: "ok"},
		{name: "client retries until the server listens", server: "sleep 0.12; touch $D/l; sleep 0.2", client: "test -e $D/l && echo joined",
			timing: quick, wantClient: "joined"},
		{name: "client never connects", server: "true", client: "echo refused; exit 1", timing: quick, wantErr: "refused"},
		{name: "server never exits", server: "exec sleep 60", client: "true",
			timing: Timing{Settle: 10 * time.Millisecond, Tries: 1, ServerGrace: 100 * time.Millisecond}, wantErr: "signal: killed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			sh := func(s string) []string { return []string{"sh", "-c", strings.ReplaceAll(s, "$D", dir)} }
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			p, err := RunPair(ctx, sh(c.server), sh(c.client), c.timing)
			if time.Since(start) > 15*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("err %v, want %q", err, c.wantErr)
			}
			if !strings.Contains(p.Client, c.wantClient) {
				t.Errorf("client printed %q, want %q", p.Client, c.wantClient)
			}
		})
	}
}
