package export

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
)

// What a first-timer needs to build and run an exported program (ux
// review item 14): the program used to be written silently, and on a
// machine without RDMA it printed only `rdma_create_event_channel: No
// such device`. The same notes go in the program's header comment and
// on export-c's standard error.

// FileName is the name export-c suggests for the program of role
// ("rdmatour-client"), without ".c".
func FileName(role steps.Role) string { return "rdmatour-" + role.String() }

// Needs are the lines that say what an exported program needs: the
// packages with the headers and libraries, a device, a peer on RDMA and
// an address that reaches it.
func Needs() []string {
	return []string{
		"Build needs gcc and the verbs headers and libraries:",
		"  Debian/Ubuntu: sudo apt-get install gcc libibverbs-dev librdmacm-dev",
		"  Fedora:        sudo dnf install gcc rdma-core-devel",
		"Run needs an RDMA device: a real RDMA NIC, or Soft-RoCE (rxe) on an",
		"Ethernet interface; `rdmatour doctor` checks this machine and prints",
		"the commands that set Soft-RoCE up. Without one the program stops at",
		"its first call with \"No such device\".",
		"The other side must be on RDMA too: the program cannot talk to",
		"rdmatour --backend sim (the simulated NIC speaks TCP, not RoCE).",
		"Use the address of the interface the RDMA device sits on (e.g. the",
		"one rxe0 is on): 127.0.0.1 does not reach rxe.",
	}
}

// AgainstRdmatour are the two commands that run the program of cfg's
// role against rdmatour on the other side, in the order to start them.
func AgainstRdmatour(cfg steps.Config) [2]string {
	flags := peerFlags(cfg)
	name := FileName(cfg.Role)
	if cfg.Role == steps.Server {
		return [2]string{
			"./" + name + " server",
			"rdmatour client SERVER_IP --backend rdma" + flags,
		}
	}
	return [2]string{
		"rdmatour server --backend rdma" + flags,
		"./" + name + " client SERVER_IP",
	}
}

// peerFlags are the flags rdmatour's side needs to run the same tour as
// the exported program: its tour, its lesson (both sides take it) and,
// for the client's peer, the notify mode the program uses.
func peerFlags(cfg steps.Config) string {
	var b strings.Builder
	if cfg.Lesson != nil {
		b.WriteString(" --lesson " + cfg.Lesson.Name)
	} else if cfg.Tour != steps.TourWrite {
		b.WriteString(" --tour " + cfg.Tour.String())
	}
	if cfg.Role == steps.Client && cfg.Notify != steps.NotifySend {
		b.WriteString(" --notify " + cfg.Notify.String())
	}
	return b.String()
}

// FirstRun is what export-c prints on standard error after writing the
// program of cfg to where (a file name, or "" for standard output).
func FirstRun(cfg steps.Config, where string) string {
	var b strings.Builder
	name := FileName(cfg.Role)
	if where == "" {
		where = "standard output"
	}
	fmt.Fprintf(&b, "rdmatour export-c: wrote the %s side to %s.\n", cfg.Role, where)
	fmt.Fprintf(&b, "Build: gcc -std=c99 -Wall -Werror -o %s %s.c -libverbs -lrdmacm\n", name, name)
	for _, line := range Needs() {
		b.WriteString(line + "\n")
	}
	cmds := AgainstRdmatour(cfg)
	fmt.Fprintf(&b, "Run it against rdmatour (SERVER_IP: the server's address on its RDMA interface):\n  1. %s\n  2. %s\n", cmds[0], cmds[1])
	return b.String()
}

// headerNotes is the part of the program's header comment that says
// what the program needs and how to run it against rdmatour.
func headerNotes(cfg steps.Config) string {
	var b strings.Builder
	b.WriteString(" *\n")
	for _, line := range Needs() {
		b.WriteString(strings.TrimRight(" * "+Comment(line), " ") + "\n")
	}
	cmds := AgainstRdmatour(cfg)
	b.WriteString(" *\n * Run it against rdmatour (SERVER_IP: the server's address on its\n * RDMA interface), first, then second:\n")
	fmt.Fprintf(&b, " *   %s\n *   %s\n", Comment(cmds[0]), Comment(cmds[1]))
	return b.String()
}
