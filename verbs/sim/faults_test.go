package sim

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// The fault table: every --wire fault on an RC WRITE, SEND, READ and
// FETCH_ADD between two simulated NICs, with the exact packets each side
// put on the wire (PSNs counted from the client's first), the completion
// and the counters that moved. The client's QP has retry_cnt 3 and a
// timeout of 16 (268 ms), so a spurious timeout on a loaded machine is
// unlikely. Each expectation follows rxe's requester, responder and
// completer (rxe_req.c, rxe_resp.c, rxe_comp.c), as the comments in
// retry.go, psn.go and replay.go cite them.

// faultOp is one operation of the table: 3000 bytes (three packets at
// the 1024-byte path MTU) or one atomic.
type faultOp struct {
	name string
	wr   func(local, remote verbs.MR) verbs.SendWR
}

var faultOps = []faultOp{
	{"WRITE", func(l, r verbs.MR) verbs.SendWR {
		return verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled, SGList: sge(l, 0, 3000), RemoteAddr: r.Addr(), RKey: r.RKey()}
	}},
	{"SEND", func(l, r verbs.MR) verbs.SendWR {
		return verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(l, 0, 3000)}
	}},
	{"READ", func(l, r verbs.MR) verbs.SendWR {
		return verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMARead, Flags: verbs.SendSignaled, SGList: sge(l, 0, 3000), RemoteAddr: r.Addr(), RKey: r.RKey()}
	}},
	{"FETCH_ADD", func(l, r verbs.MR) verbs.SendWR {
		return verbs.SendWR{WRID: 1, Opcode: verbs.WRAtomicFetchAndAdd, Flags: verbs.SendSignaled, SGList: sge(l, 0, 8), RemoteAddr: r.Addr(), RKey: r.RKey(), CompareAdd: 5}
	}},
}

// faultRun is what one row did.
type faultRun struct {
	cli, srv       []string // the packets each side sent, in order
	status         verbs.WCStatus
	cliCnt, srvCnt map[string]uint64 // each device's counters that moved
	cliQP, srvQP   verbs.QPState     // after the completion: ERR only where retries ran out
	data           byte              // the server's first byte after the op (WRITE, SEND: 'x'; FETCH_ADD: 5 once)
}

func runFault(t *testing.T, op faultOp, cliWire, srvWire string) faultRun {
	t.Helper()
	srv, cli := connectPair(t, pairCfg{connect: verbs.ConnParam{RetryCount: 3}})
	remote := srv.regMR(t, 4096, rwAccess|verbs.AccessRemoteAtomic)
	local := cli.regMR(t, 4096, verbs.AccessLocalWrite)
	must(t, local.Write(0, []byte(strings.Repeat("x", 3000))))
	must(t, remote.Write(0, []byte(strings.Repeat("r", 3000))))
	if op.name == "FETCH_ADD" {
		must(t, remote.Write(0, make([]byte, 8)))
	}
	must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 2, SGList: sge(remote, 0, 4096)}))
	cq := cli.qp.(*qp)
	cq.mu.Lock()
	cq.timeout = 16
	base := cq.sqPSN
	cq.mu.Unlock()
	for _, w := range []struct {
		s    *side
		spec string
	}{{cli, cliWire}, {srv, srvWire}} {
		f, err := verbs.ParseWireFaults(w.spec)
		must(t, err)
		must(t, w.s.qp.(verbs.WireImpairer).ImpairWire(f))
	}
	must(t, cli.qp.PostSend(op.wr(local, remote)))
	run := faultRun{status: pollN(t, cli.cq, 1)[0].Status}
	time.Sleep(150 * time.Millisecond) // a late duplicate, and what answers it
	run.cli = packetLines(cli.p.dev.Packets(0), base)
	run.srv = packetLines(srv.p.dev.Packets(0), base)
	run.cliCnt, run.srvCnt = movedCounters(t, cli), movedCounters(t, srv)
	run.cliQP, run.srvQP = qpState(t, cli.qp), qpState(t, srv.qp)
	b, err := remote.Read(0, 1)
	must(t, err)
	run.data = b[0]
	return run
}

// packetLines is each outbound packet as "OPCODE +psn", an ACK with its
// syndrome, a lost one marked.
func packetLines(ps []verbs.Packet, base uint32) []string {
	var out []string
	for _, p := range ps {
		if !p.Outbound {
			continue
		}
		s := fmt.Sprintf("%s +%d", verbs.OpcodeName(p.Opcode), psnDiff(p.PSN, base))
		if p.Opcode == verbs.OpAcknowledge && p.AETH != nil {
			s += " " + verbs.SyndromeName(p.AETH.Syndrome)
		}
		if p.Lost {
			s += " LOST"
		}
		if p.Retransmit {
			s += " again"
		}
		out = append(out, s)
	}
	return out
}

// movedCounters is the side's device counters that are not 0: packets
// and the transport's errors (a lost packet counts in its sender's
// sent_pkts and in no one's rcvd_pkts).
func movedCounters(t *testing.T, s *side) map[string]uint64 {
	m := map[string]uint64{}
	c, err := s.id.Device().Counters(1)
	must(t, err)
	for _, n := range []string{"sent_pkts", "rcvd_pkts", "rcvd_seq_err", "duplicate_request", "out_of_seq_request", "completer_retry_err", "retry_exceeded_err"} {
		if c[n] != 0 {
			m[n] = c[n]
		}
	}
	return m
}

// faultRows are the table's rows for each operation: the client's and
// the server's --wire. Each row names the fault it shows.
var faultRows = map[string][][2]string{
	"WRITE": {
		{"drop=2", ""},          // lost-write: NAK, go-back-N from the NAK's PSN
		{"", "drop=1"},          // lost-ack: timeout, duplicates ACKed again, not executed
		{"dup=2", ""},           // a duplicate: duplicate_request, ACKed again
		{"delay=2:50ms", ""},    // late: NAK, go-back-N, then the late one is a duplicate
		{"reorder=2", ""},       // swapped: NAK, the swapped one lands, the resend is a duplicate
		{"loss=50% seed=2", ""}, // seeded loss
		{"loss=100%", ""},       // nothing arrives: retry_cnt 3 runs out
	},
	"READ": {
		{"drop=1", ""},          // the request lost: timeout, asked again
		{"", "drop=2"},          // a middle response lost: timeout, the rest asked for again
		{"dup=1", ""},           // the request twice: the responder answers twice
		{"", "delay=2:50ms"},    // a late response: dropped, then the rest asked for again
		{"", "reorder=2"},       // responses swapped: the last asked for again
		{"", "loss=50% seed=2"}, // seeded loss of responses
		{"loss=100%", ""},       // nothing arrives: retry_cnt 3 runs out
	},
	"FETCH_ADD": {
		{"drop=1", ""},       // the request lost: timeout, sent again
		{"", "drop=1"},       // the ACK lost: sent again, answered from the saved result, not added twice
		{"dup=1", ""},        // the request twice: answered twice, added once
		{"delay=1:50ms", ""}, // late, within the timeout: nothing else happens
		{"reorder=1", ""},    // held back with nothing behind it: goes out alone, late
		{"loss=100%", ""},    // nothing arrives: retry_cnt 3 runs out
	},
}

func init() { faultRows["SEND"] = faultRows["WRITE"] }

// TestFaultTable runs every row and compares what it did with
// testdata/faults.golden (go test -run TestFaultTable -update rewrites
// it; read the diff).
func TestFaultTable(t *testing.T) {
	var b strings.Builder
	for _, op := range faultOps {
		for _, f := range faultRows[op.name] {
			r := runFault(t, op, f[0], f[1])
			fmt.Fprintf(&b, "%s client %q server %q: %s, server byte %q\n", op.name, f[0], f[1], r.status, r.data)
			fmt.Fprintf(&b, "  client sent: %s\n  server sent: %s\n", strings.Join(r.cli, ", "), strings.Join(r.srv, ", "))
			fmt.Fprintf(&b, "  client QP %s, counters %v\n  server QP %s, counters %v\n", r.cliQP.CName(), r.cliCnt, r.srvQP.CName(), r.srvCnt)
		}
	}
	golden := filepath.Join("testdata", "faults.golden")
	if *updateGolden {
		must(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	must(t, err)
	if got := b.String(); got != string(want) {
		t.Errorf("the fault table differs from %s (-update rewrites it):\n%s", golden, lineDiff(string(want), got))
	}
}

var updateGolden = flag.Bool("update", false, "rewrite testdata/faults.golden")

// lineDiff is the lines of got that differ from want, with want's.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out strings.Builder
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			fmt.Fprintf(&out, "want %s\n got %s\n", a, b)
		}
	}
	return out.String()
}
