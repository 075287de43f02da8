package steps

// The real tools: each tour names the rdma-core or perftest commands
// that do what it did, with this run's device, address, port and size,
// so a learner can run the same thing without rdmatour (issue 25 item 9).
// Each tour's row in the catalogue (TourDef.tools) picks its commands;
// the command lines are built here, checked against the tools' usage:
// perftest src/perftest_parameters.c (-R rdma_cm, -d, -s, -n at least 5,
// -p, -A), rdma-core libibverbs/examples/rc_pingpong.c and ud_pingpong.c
// (-d, -g, -s, -n, -p) and librdmacm/examples/rping.c (-s/-c, -a, -p,
// -C, -v, -q: the application makes and moves the QP itself).

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/rdmatour/rdmatour/text"
)

// ToolArgs is what a run's commands take from it.
type ToolArgs struct {
	// Server is where the server listened (its address may be
	// unspecified: the server's commands then bind to any).
	Server netip.AddrPort
	// Device is the RDMA device's name; "" on the simulated NIC, which
	// the tools cannot open.
	Device string
	// GIDIndex is the GID the connection used (-1: not known): the
	// tools that connect without rdma_cm need it on RoCE.
	GIDIndex int
	// Size is how many bytes the tour's operation moved.
	Size  int
	Track Track
}

// ToolCommand is one tool's pair of commands, the server's and the
// client's, and the package that has it.
type ToolCommand struct {
	Package        string
	Server, Client string
	What           text.Text
}

// Tools are the commands that do what tour kind did, for a.
func Tools(kind TourKind, a ToolArgs) []ToolCommand {
	d, ok := TourOf(kind)
	if !ok || d.tools == nil {
		return nil
	}
	return d.tools(a)
}

// ToolArgsOf is cfg's run as the tools' arguments; dev and gid are the
// device the run used ("" if none or simulated) and its GID index.
func ToolArgsOf(cfg Config, dev string, gid int) ToolArgs {
	c := cfg.withDefaults()
	srv := c.Server
	if c.Role == Server {
		srv = c.Bind
	}
	return ToolArgs{Server: srv, Device: dev, GIDIndex: gid, Size: len(c.messageBytes()), Track: c.Track}
}

// perftest is a perftest benchmark over rdma_cm, -n 5 (its minimum).
func perftest(tool string, a ToolArgs, what text.Text, flags ...string) ToolCommand {
	args := append([]string{tool, "-R"}, deviceFlag(a)...)
	args = append(append(args, flags...), "-n", "5", "-p", port(a))
	return ToolCommand{Package: "perftest", What: what, Server: join(args), Client: join(append(args, host(a)))}
}

// pingpong is an rdma-core example that exchanges the QP's number over
// TCP and moves the QP by hand: -g names the GID, which RoCE needs.
func pingpong(tool string, a ToolArgs, what text.Text) ToolCommand {
	args := append([]string{tool}, deviceFlag(a)...)
	if a.GIDIndex >= 0 {
		args = append(args, "-g", fmt.Sprint(a.GIDIndex))
	}
	args = append(args, "-s", fmt.Sprint(a.Size), "-n", "1", "-p", port(a))
	return ToolCommand{Package: "ibverbs-utils", What: what, Server: join(args), Client: join(append(args, host(a)))}
}

// rping is librdmacm's ping; ownQP (-q) makes and moves the QP itself,
// as the manual track does.
func rping(a ToolArgs, ownQP bool) ToolCommand {
	tail := []string{"-p", port(a), "-C", "1", "-v"}
	if ownQP {
		tail = append(tail, "-q")
	}
	srv := []string{"rping", "-s"}
	if a.Server.Addr().IsValid() && !a.Server.Addr().IsUnspecified() {
		srv = append(srv, "-a", host(a))
	}
	return ToolCommand{Package: "rdmacm-utils", Server: join(append(srv, tail...)),
		Client: join(append([]string{"rping", "-c", "-a", host(a)}, tail...)),
		What:   text.Text{EN: "rdma_cm's ping: SEND, RDMA READ and RDMA WRITE, once", ZH: "rdma_cm 的 ping：SEND、RDMA READ 和 RDMA WRITE 各一次"}}
}

func deviceFlag(a ToolArgs) []string {
	if a.Device == "" {
		return nil
	}
	return []string{"-d", a.Device}
}

func port(a ToolArgs) string { return fmt.Sprint(a.Server.Port()) }

// host is the server's address as the client names it.
func host(a ToolArgs) string {
	if !a.Server.Addr().IsValid() || a.Server.Addr().IsUnspecified() {
		return "SERVER_ADDR"
	}
	return a.Server.Addr().Unmap().String()
}

func join(args []string) string { return strings.Join(args, " ") }
