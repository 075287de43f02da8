// Package perftest runs perftest's and rdma-core's tools as a server and
// client pair and reads the result table perftest prints. The real-verbs
// tests use it to hold rdmatour's own numbers against ib_write_lat and
// ib_write_bw on the same device, and to run the commands a tour names at
// its end as printed.
package perftest

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Row is one result line of a perftest table, by column header.
type Row map[string]string

// Num is column col as a number.
func (r Row) Num(col string) (float64, error) {
	v, err := strconv.ParseFloat(r[col], 64)
	if err != nil {
		return 0, fmt.Errorf("column %q: %w (row %v)", col, err, r)
	}
	return v, nil
}

// Parse reads the table perftest prints after its dashed rule: a header
// of column names, some of two words ("BW average[MB/sec]", "99%
// percentile[usec]"; every name but "#bytes" and "#iterations" ends in its
// unit in brackets), then one line of numbers.
func Parse(out string) (Row, error) {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "#bytes") || i+1 >= len(lines) {
			continue
		}
		var cols []string
		pending := ""
		for _, w := range strings.Fields(l) {
			if strings.HasPrefix(w, "#") || strings.Contains(w, "[") {
				cols = append(cols, pending+w)
				pending = ""
			} else {
				pending += w + " "
			}
		}
		vals := strings.Fields(lines[i+1])
		if len(vals) != len(cols) {
			return nil, fmt.Errorf("header has %d columns, the row %d: %q", len(cols), len(vals), lines[i+1])
		}
		row := Row{}
		for j, c := range cols {
			row[c] = vals[j]
		}
		return row, nil
	}
	return nil, errors.New("no #bytes table in the output")
}

// Pair is what a server and a client command printed.
type Pair struct{ Server, Client string }

// Timing is how a pair is run. Under TCG a tool takes seconds to start
// listening, so the client waits Settle before each try; a client that
// found no listener yet tries again, Tries times in all.
type Timing struct {
	Settle time.Duration
	Tries  int
	// ServerGrace is how long the server may run on after the client
	// exited before it is killed.
	ServerGrace time.Duration
}

// GuestTiming suits a QEMU TCG guest, where perftest's server needs 1-3 s
// to listen, more on a busy host (a client saw no listener for 10 s once,
// 2026-12-03, with a host core held busy).
func GuestTiming() Timing {
	return Timing{Settle: 1500 * time.Millisecond, Tries: 12, ServerGrace: 30 * time.Second}
}

// RunPair starts server, then client until it succeeds or runs out of
// tries, and waits for the server. Nothing waits past ctx: a tool still
// running then is killed, and Wait returns even if a child holds the
// pipes. The error names the command that failed, with both outputs.
func RunPair(ctx context.Context, server, client []string, tm Timing) (Pair, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv, srvOut := command(ctx, server)
	if err := srv.Start(); err != nil {
		return Pair{}, err
	}
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Wait() }()
	var cliErr error
	var cliOut *strings.Builder
	for try := 0; try < max(1, tm.Tries); try++ {
		time.Sleep(tm.Settle)
		var cli *exec.Cmd
		cli, cliOut = command(ctx, client)
		if cliErr = cli.Run(); cliErr == nil || ctx.Err() != nil {
			break
		}
	}
	var srvErr error
	select {
	case srvErr = <-srvDone:
	case <-time.After(tm.ServerGrace):
		cancel()
		srvErr = <-srvDone
	}
	p := Pair{Server: srvOut.String(), Client: cliOut.String()}
	if cliErr != nil || srvErr != nil {
		return p, fmt.Errorf("%s: %v\n%s\n%s: %v\n%s", strings.Join(server, " "), srvErr, p.Server, strings.Join(client, " "), cliErr, p.Client)
	}
	return p, nil
}

// command is args, killed when ctx ends, its output kept.
func command(ctx context.Context, args []string) (*exec.Cmd, *strings.Builder) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	return cmd, &out
}
