package export_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/export"
	"github.com/rdmatour/rdmatour/steps"
	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// needGCC skips the test unless gcc and the verbs/rdma_cm headers are here.
func needGCC(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: cannot compile the printed C")
	}
	for _, h := range []string{"/usr/include/infiniband/verbs.h", "/usr/include/rdma/rdma_cma.h"} {
		if _, err := os.Stat(h); err != nil {
			t.Skipf("%s is missing (apt-get install libibverbs-dev librdmacm-dev): cannot compile the printed C", h)
		}
	}
}

// exportCase is one tour whose C is checked.
type exportCase struct {
	name string
	o    export.Options
}

func exportCases() []exportCase {
	var cases []exportCase
	for _, track := range []steps.Track{steps.TrackCM, steps.TrackManual} {
		for _, n := range []steps.Notify{steps.NotifySend, steps.NotifyDoorbell, steps.NotifyImm} {
			cases = append(cases, exportCase{track.String() + "/" + n.String(), export.Options{Notify: n, Track: track}})
		}
	}
	for _, l := range steps.Lessons() {
		cases = append(cases, exportCase{"lesson/" + l.Name, export.Options{Notify: l.Notify, Lesson: &l}})
	}
	for _, tour := range []steps.TourKind{steps.TourRead, steps.TourAtomic} {
		cases = append(cases, exportCase{"tour/" + tour.String(), export.Options{Tour: tour}})
	}
	cases = append(cases, exportCase{"cm/send/message-size", export.Options{Notify: steps.NotifySend, MessageSize: 3000}})
	cases = append(cases, exportCase{"ud", export.Options{Tour: steps.TourUD}})
	return cases
}

// snippet is C to compile, and where it came from for the error message.
type snippet struct{ from, code string }

// gccCheck compiles src and fails with gcc's messages.
func gccCheck(t *testing.T, name, src string, args ...string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".c")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("gcc", append([]string{"-std=c99", "-Wall", "-Werror", file}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", name, err, out)
	}
}

// stepSnippets runs every export case on simulated NICs and returns the
// C of every step of both sides: its generic form, and once it ran, the
// screen lines with the actual values and the statements export-c writes.
func stepSnippets(t *testing.T) []snippet {
	t.Helper()
	var snippets []snippet
	for _, tc := range exportCases() {
		sides, err := steps.RunPair(context.Background(), tc.o.Config(), compileSim(), compileSim())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for role, s := range sides {
			snap := s.Snapshot()
			for i, st := range s.Steps() {
				from := fmt.Sprintf("%s %s/%s", tc.name, role, st.ID)
				snippets = append(snippets, snippet{from + " (generic)", st.Call})
				if out := snap.Steps[i].Outcome; out != nil {
					snippets = append(snippets, snippet{from + " (screen)", out.Call}, snippet{from + " (program)", c.Lines(out.C, c.Symbolic)})
				}
			}
		}
	}
	return snippets
}

// TestPrintedCCompiles runs every tour, lesson and track on the simulated
// NIC and compiles, with gcc against the real headers, every C line shown:
// the generic form of every step, the screen lines with the actual values,
// and the statements export-c writes.
func TestPrintedCCompiles(t *testing.T) {
	needGCC(t)
	snippets := stepSnippets(t)
	var src strings.Builder
	src.WriteString(export.Prelude())
	for i, sn := range snippets {
		fmt.Fprintf(&src, "\n/* %s */\nvoid snippet_%d(void)\n{\n%s\n}\n", export.Comment(sn.from), i, sn.code)
	}
	gccCheck(t, "lines", src.String(), "-fsyntax-only", "-Wno-unused-function")
	t.Logf("%d snippets compiled", len(snippets))
}

// compileSim is a simulated NIC for the tests that only compile what it
// ran: its ACK timeout is 67 ms (code 14), not rxe's 2.15 s, so that the
// wire lessons' retries (peer-vanished: four of them) take a moment, not
// 9 s a side. The C may show another attr.timeout; gcc does not mind.
func compileSim() *sim.Provider { return sim.New(sim.Options{ACKTimeout: 14}) }

// TestExportedProgramsBuild builds (compiles and links) the program
// export-c writes for every tour, lesson and track, both sides.
func TestExportedProgramsBuild(t *testing.T) {
	needGCC(t)
	for _, tc := range exportCases() {
		for _, role := range []steps.Role{steps.Server, steps.Client} {
			t.Run(tc.name+"/"+role.String(), func(t *testing.T) {
				o := tc.o
				o.Role = role
				prog, err := export.Program(context.Background(), o, compileSim(), compileSim())
				if err != nil {
					t.Fatal(err)
				}
				gccCheck(t, "prog", prog, "-o", filepath.Join(t.TempDir(), "prog"), "-libverbs", "-lrdmacm")
			})
		}
	}
}

// TestServerHangsUpSecond: every exported server that hangs up itself
// waits for the client's DREQ first (wait_for_hangup), so its QP cannot
// go to ERR between the last RECV completion and rxe's ACK of that SEND;
// no client waits (it hangs up first, once its SEND is acknowledged).
func TestServerHangsUpSecond(t *testing.T) {
	const wait = "    wait_for_hangup(ec, HANGUP_WAIT_MS);\n    rdma_disconnect(id);"
	for _, tc := range []struct {
		name string
		o    export.Options
		want bool
	}{
		{"write server", export.Options{Role: steps.Server}, true},
		{"write server, manual track", export.Options{Role: steps.Server, Track: steps.TrackManual}, true},
		{"write server, doorbell", export.Options{Role: steps.Server, Notify: steps.NotifyDoorbell}, true},
		{"write client", export.Options{Role: steps.Client}, false},
		// The read server's wait already took the client's DISCONNECTED.
		{"read server", export.Options{Role: steps.Server, Tour: steps.TourRead}, false},
	} {
		prog, err := export.Program(context.Background(), tc.o, sim.New(sim.Options{}), sim.New(sim.Options{}))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := strings.Contains(prog, wait); got != tc.want {
			t.Errorf("%s: waits for the client's hangup before rdma_disconnect = %v, want %v", tc.name, got, tc.want)
		}
	}
}
