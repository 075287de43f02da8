package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestRealSiwTours runs the tours on Soft-iWARP: the write and read tours
// as two processes, and the atomic and ud tours, --notify imm and the
// manual track refused up front. It needs a guest whose only RDMA device is siw0 (with rxe0
// next to it on eth0, rdma_cm binds the address to rxe0):
//
//	go build -o /tmp/rdmatour ./cmd/rdmatour && go test -c -o /tmp/main.test ./cmd/rdmatour
//	RDMATOUR_GUEST_SIW=only scripts/qemu/run-in-guest.sh -- env RDMATOUR_BIN=/tmp/rdmatour \
//	    RDMATOUR_SIW_ADDR=10.0.2.15 /tmp/main.test -test.run TestRealSiwTours -test.v
//
// Measured: 23 s in the guest (TCG), boot not included.
func TestRealSiwTours(t *testing.T) {
	addr := os.Getenv("RDMATOUR_SIW_ADDR")
	if addr == "" {
		t.Skip("set RDMATOUR_SIW_ADDR to an address whose RDMA device is siw (RDMATOUR_GUEST_SIW=only in the QEMU guest)")
	}
	for _, tc := range []struct {
		name    string
		tour    []string // flags for both sides
		cli     []string // the client's own flags; the server runs only when refused is empty
		want    []string // in either side's output
		refused string   // the client stops with this before connecting
	}{
		{name: "write-send", cli: []string{"--notify", "send", "--message", "over siw"},
			want: []string{"learned of the write via send", "siw0 is iWARP, not RoCE", "live objects left = 0"}},
		{name: "write-doorbell", cli: []string{"--notify", "doorbell", "--message", "over siw"},
			want: []string{"learned of the write via doorbell", "siw0 is iWARP, not RoCE"}},
		{name: "read", tour: []string{"--tour", "read"},
			want: []string{"On iWARP the READ's sink gets IBV_ACCESS_REMOTE_WRITE too", "its RDMA READ fetched it", "live objects left = 0"}},
		{name: "write-imm", cli: []string{"--notify", "imm"}, refused: "--notify imm cannot run on siw0"},
		{name: "atomic", tour: []string{"--tour", "atomic"}, refused: "--tour atomic cannot run on siw0, an iWARP device"},
		{name: "ud", tour: []string{"--tour", "ud"}, refused: "--tour ud cannot run on siw0, an iWARP device"},
		{name: "manual", tour: []string{"--track", "manual"}, refused: "--track manual cannot run on siw0, an iWARP device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t)
			common := append([]string{"--backend", "rdma", "--plain", "--auto", "--timeout", "60s"}, tc.tour...)
			var srv *proc
			if tc.refused == "" {
				srv = start(t, nil, append([]string{"server", port, "--bind", addr}, common...)...)
				srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
			}
			cli := start(t, nil, append(append([]string{"client", addr, port}, common...), tc.cli...)...)
			code := cli.wait(t, 120*time.Second)
			if tc.refused != "" {
				if code == 0 || !strings.Contains(strings.Join(strings.Fields(cli.out.String()), " "), tc.refused) {
					t.Fatalf("client exit %d, want a refusal %q:\n%s", code, tc.refused, cli.out)
				}
				return
			}
			if code != 0 {
				t.Fatalf("client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
			}
			if code := srv.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("server exit %d:\n%s", code, srv.out)
			}
			// Plain mode wraps notes: compare with the line breaks folded.
			both := strings.Join(strings.Fields(srv.out.String()+" "+cli.out.String()), " ")
			for _, want := range tc.want {
				if !strings.Contains(both, want) {
					t.Errorf("neither side printed %q\nserver:\n%s\nclient:\n%s", want, srv.out, cli.out)
				}
			}
		})
	}
}
