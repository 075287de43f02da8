package main

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// cliCase is one careless command line: the exit status and the exact
// one-line message ("rdmatour: ..." on stderr) it must get.
type cliCase struct {
	name string
	args []string
	code int
	msg  string // the last "rdmatour: " line, without the prefix
	// prefix: msg is only the start of the line (the rest names an
	// errno or a library's words).
	prefix bool
}

func usage(cmd, msg string) string {
	return msg + ` ("rdmatour ` + cmd + ` --help" lists the flags)`
}

// cliBadInput is every flag's bad values, the wrong positional forms and
// unknown subcommands: all refused before anything is opened, with exit
// status 2.
func cliBadInput() []cliCase {
	sim := []string{"--backend", "sim", "--plain", "--auto"}
	long := strings.Repeat("x", 4096)
	c := func(name string, msg string, args ...string) cliCase {
		return cliCase{name: name, args: args, code: 2, msg: msg}
	}
	startsWith := func(cc cliCase) cliCase { cc.prefix = true; return cc }
	return []cliCase{
		c("no command", "no command given"),
		c("unknown command", `unknown command "serve"`, "serve"),
		c("misspelt --version", `unknown command "--verison"`, "--verison"),
		c("unknown flag", usage("server", "flag provided but not defined: -colour"), "server", "--colour"),
		c("server-only flag on the client", usage("client", "flag provided but not defined: -wait-client"), "client", "127.0.0.1", "--wait-client", "5s"),
		c("client-only flag on the server", usage("server", "flag provided but not defined: -message"), "server", "--message", "hi"),
		c("--port -1", usage("server", `invalid value "-1" for flag -port: port "-1" is out of range: use 1-65535`), "server", "--port", "-1"),
		c("--port 0", usage("server", `invalid value "0" for flag -port: port "0" is out of range: use 1-65535`), "server", "--port", "0"),
		c("--port 65536", usage("server", `invalid value "65536" for flag -port: port "65536" is out of range: use 1-65535`), "server", "--port", "65536"),
		c("--port abc", usage("server", `invalid value "abc" for flag -port: port "abc" is not a number: use 1-65535`), "server", "--port", "abc"),
		c("client --port 0", usage("client", `invalid value "0" for flag -port: port "0" is out of range: use 1-65535`), "client", "127.0.0.1", "--port", "0"),
		c("positional port -1", `port "-1" is out of range: use 1-65535`, "server", "-1"),
		c("positional port 0", `port "0" is out of range: use 1-65535`, "server", "0"),
		c("positional port 70000", `port "70000" is out of range: use 1-65535`, "server", "70000"),
		c("client positional port abc", `port "abc" is not a number: use 1-65535`, "client", "127.0.0.1", "abc"),
		c("server with two ports", `server takes at most one positional argument (the port), got ["1" "2"]`, "server", "1", "2"),
		c("client without server", "client needs the server's address: rdmatour client SERVER [PORT]", "client"),
		c("client with five arguments", `too many arguments: ["a" "1" "b" "send" "extra"] (rdmatour client SERVER [PORT] [SRC_IP] [NOTIFY])`, "client", "a", "1", "b", "send", "extra"),
		c("seed form with a bad notify", "unknown notify mode: pigeon (use send, doorbell or imm)", "client", "127.0.0.1", "7471", "10.0.0.9", "pigeon"),
		c("seed form with a bad source address", `source address "not-an-ip" is not an IP address`, "client", "127.0.0.1", "7471", "not-an-ip"),
		c("--notify pigeon", usage("client", `invalid value "carrier-pigeon" for flag -notify: unknown notify mode "carrier-pigeon": use send, doorbell or imm`), "client", "127.0.0.1", "--notify", "carrier-pigeon"),
		c("--notify without a value", "flag --notify needs a value", "client", "127.0.0.1", "--notify"),
		c("--lang without a value", "flag --lang needs a value", "server", "--lang"),
		c("--track without a value", "flag --track needs a value", "demo", "--track"),
		c("--message empty", `--message is empty: give the text to write (leave the flag out for the default, "hello from rdmatour client via RDMA WRITE")`, "client", "127.0.0.1", "--message", ""),
		c("--message too long", "--message is 4096 bytes; at most 4095 fit the 4096-byte buffer with its NUL", "client", "127.0.0.1", "--message", long),
		c("--message-size above the buffer", "--message-size 4097 is out of range: the bytes to WRITE, NUL included, at most 4096 (the data buffer's size)", "client", "127.0.0.1", "--message-size", "4097"),
		c("--message-size negative", "--message-size -1 is out of range: the bytes to WRITE, NUL included, at most 4096 (the data buffer's size)", "demo", "--message-size", "-1"),
		c("--message-size below the message", "--message-size 2 is smaller than the message (3 bytes with its NUL): give at least 3, or a shorter --message", "client", "127.0.0.1", "--message", "hi", "--message-size", "2"),
		c("--message-size not a number", usage("demo", `invalid value "3k" for flag -message-size: "3k" is not a number of bytes: write it like 3000`), "demo", "--message-size", "3k"),
		c("--message-size on the server", usage("server", "flag provided but not defined: -message-size"), "server", "--message-size", "3000"),
		c("--timeout -1s", "--timeout -1s: must be positive (how long a wait on the peer may take, e.g. 30s)", "server", "--timeout", "-1s"),
		c("--timeout 0", "--timeout 0s: must be positive (how long a wait on the peer may take, e.g. 30s)", "client", "127.0.0.1", "--timeout", "0"),
		c("--timeout soon", usage("server", `invalid value "soon" for flag -timeout: "soon" is not a duration: write it like 30s, 2m or 1h`), "server", "--timeout", "soon"),
		c("--timeout without a unit", usage("demo", `invalid value "1" for flag -timeout: "1" is not a duration: write it like 30s, 2m or 1h`), "demo", "--timeout", "1"),
		c("--wait-client -1s", "--wait-client -1s: must not be negative (how long to wait for a client, e.g. 5m; 0 waits forever)", "server", "--wait-client", "-1s"),
		c("--wait-client forever", usage("server", `invalid value "forever" for flag -wait-client: "forever" is not a duration: write it like 30s, 2m or 1h`), "server", "--wait-client", "forever"),
		c("--lang fr", usage("demo", `invalid value "fr" for flag -lang: unknown language "fr": use en, zh or both`), "demo", "--lang", "fr"),
		c("lessons --lang fr", usage("lessons", `invalid value "fr" for flag -lang: unknown language "fr": use en, zh or both`), "lessons", "--lang", "fr"),
		c("--backend gpu", usage("demo", `invalid value "gpu" for flag -backend: unknown backend "gpu": use auto, rdma or sim`), "demo", "--backend", "gpu"),
		c("--track auto", usage("demo", `invalid value "auto" for flag -track: unknown track "auto": use cm or manual`), "demo", "--track", "auto"),
		c("--lesson nope", usage("demo", "invalid value \"nope\" for flag -lesson: unknown lesson \"nope\": `rdmatour lessons` lists them (["+lessonNamesSorted()+"])"), "demo", "--lesson", "nope"),
		c("--wire drop=0", usage("demo", `invalid value "drop=0" for flag -wire: --wire "drop=0": "0" is not a packet number (1, 2, …) (terms: drop=N[,M…] loss=P% seed=S dup=N delay=N:DURATION reorder=N, separated by spaces)`), "demo", "--wire", "drop=0"),
		c("--wire flip=3", usage("client", `invalid value "flip=3" for flag -wire: --wire "flip=3": unknown fault "flip" (terms: drop=N[,M…] loss=P% seed=S dup=N delay=N:DURATION reorder=N, separated by spaces)`), "client", "127.0.0.1", "--wire", "flip=3"),
		c("lesson on the manual track", "--track manual and --lesson bad-rkey cannot be combined: that lesson runs on the rdma_cm track (leave --track out)", "demo", "--lesson", "bad-rkey", "--track", "manual"),
		c("lesson with the wrong --notify", "lesson doorbell-ordering needs --notify doorbell", "demo", "--lesson", "doorbell-ordering", "--notify", "send"),
		c("lesson with the wrong seed notify", "lesson no-recv needs --notify send", "client", "127.0.0.1", "7471", "doorbell", "--lesson", "no-recv"),
		c("--rnr-retry 8", usage("demo", `invalid value "8" for flag -rnr-retry: "8" is out of range: 0..7 (7 = retry forever)`), "demo", "--rnr-retry", "8"),
		c("--rnr-retry -1", usage("demo", `invalid value "-1" for flag -rnr-retry: "-1" is out of range: 0..7 (7 = retry forever)`), "demo", "--rnr-retry", "-1"),
		c("--pause-at nope", usage("server", `invalid value "nope" for flag -pause-at: unknown step "nope" for --pause-at (the IDs are in the plain tour's headings, e.g. accept)`), "server", "--pause-at", "nope"),
		c("--plain=maybe", usage("demo", `invalid boolean value "maybe" for -plain: parse error`), "demo", "--plain=maybe"),
		c("demo with an argument", `demo takes no arguments, got ["extra"]`, "demo", "extra"),
		c("devices with an argument", `devices takes no arguments, got ["extra"]`, "devices", "extra"),
		c("doctor with an argument", `doctor takes no arguments, got ["extra"]`, "doctor", "extra"),
		c("lessons with an argument", `lessons takes no arguments, got ["extra"]`, "lessons", "extra"),
		c("--bind not an address", `--bind "10.0.0.300" is not an IP address`, append([]string{"server", "--bind", "10.0.0.300"}, sim...)...),
		c("demo --bind not an address", `--bind "nope" is not an IP address`, append([]string{"demo", "--bind", "nope"}, sim...)...),
		c("--src not an address", `source address "nope" is not an IP address`, append([]string{"client", "127.0.0.1", "--src", "nope"}, sim...)...),
		// X4 and C8 of the hostile review (../shared/reviews/hostile.md).
		startsWith(c("--pause-at another tour's step (X4)", `--pause-at ud-send: the tour run here has no such step (its steps: create-event-channel`, append([]string{"demo", "--pause-at", "ud-send"}, sim...)...)),
		startsWith(c("--pause-at the other side's step (X4)", `--pause-at post-write: the tour run here has no such step (its steps: create-event-channel`, append([]string{"server", "--pause-at", "post-write"}, sim...)...)),
		c("--src not local (C8)", "--src 10.9.9.9 is not an address of this machine (ip addr lists them): give one of its own, or leave --src out", append([]string{"client", "127.0.0.1", "--src", "10.9.9.9"}, sim...)...),
		c("--src of the other family (C8)", "--src ::1 and the server 127.0.0.1 are not the same IP version: give a source of the server's family", append([]string{"client", "127.0.0.1", "--src", "::1"}, sim...)...),
		c("--message on the read tour (E4)", "--message with --tour read: this tour sends no message (the client only reads or changes the server's memory); leave --message out, or run --tour write or ud",
			append([]string{"demo", "--tour", "read", "--message", "MY READ MSG"}, sim...)...),
		c("--message on an atomic lesson (E4)", "--message with --tour atomic: this tour sends no message (the client only reads or changes the server's memory); leave --message out, or run --tour write or ud",
			append([]string{"client", "127.0.0.1", "--lesson", "no-remote-atomic", "--message", "x"}, sim...)...),
		c("unresolvable host", `cannot resolve "no-such-host.invalid": not an IP address and no such host name; check the spelling, or give the server's IP address`,
			append([]string{"client", "no-such-host.invalid"}, sim...)...),
	}
}

// cliRunFailures are command lines that are well formed but meet a
// machine or a peer that cannot serve them: exit status 1.
func cliRunFailures(t *testing.T) []cliCase {
	sim := []string{"--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "5s"}
	busy, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() })
	busyPort := fmt.Sprint(busy.Addr().(*net.TCPAddr).Port)
	junkPort := junkServer(t)
	free := freePort(t)
	cases := []cliCase{
		{"port in use", append([]string{"server", busyPort}, sim...), 1, "port " + busyPort + " is already in use", true},
		{"nobody listening", append([]string{"client", "127.0.0.1", free}, sim...), 1,
			"nothing is listening at 127.0.0.1:" + free + " (got RDMA_CM_EVENT_REJECTED (status 8), expected RDMA_CM_EVENT_ESTABLISHED). Start `rdmatour server --port " + free + " --backend sim` there first, and check the address and --port", false},
		{"a peer that is not rdmatour", append([]string{"client", "127.0.0.1", junkPort}, sim...), 1, "127.0.0.1:" + junkPort + " did not answer as an RDMA server", true},
		{"bind to a foreign address", append([]string{"server", "--bind", "203.0.113.7"}, sim...), 1, "203.0.113.7 is not an address of this machine", true},
	}
	if !hostHasRDMA() {
		cases = append(cases, cliCase{"real backend without RDMA", []string{"client", "127.0.0.1", free, "--backend", "rdma", "--plain", "--auto"}, 1,
			"--backend rdma: real RDMA is not usable here", true})
	}
	return cases
}

// junkServer answers every connection with bytes that are not rdma_cm.
func junkServer(t *testing.T) string {
	junk, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { junk.Close() })
	go func() {
		for {
			c, err := junk.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\nthis is not rdma\n"))
			time.Sleep(100 * time.Millisecond)
			c.Close()
		}
	}()
	return fmt.Sprint(junk.Addr().(*net.TCPAddr).Port)
}

func TestCLIBadInputTable(t *testing.T) {
	cases := append(cliBadInput(), cliRunFailures(t)...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, nil, tc.args...)
			code := p.wait(t, 20*time.Second)
			out := p.out.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, out)
			}
			got, _ := strings.CutPrefix(lastLine(out, "rdmatour: "), "rdmatour: ")
			if got != tc.msg && !(tc.prefix && strings.HasPrefix(got, tc.msg)) {
				t.Errorf("says\n%q\nwant\n%q", got, tc.msg)
			}
			if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
				t.Errorf("output shows a panic:\n%s", out)
			}
		})
	}
}

// lessonNamesSorted is every lesson's name, sorted, as the unknown
// lesson error lists them.
func lessonNamesSorted() string {
	var names []string
	for _, l := range steps.Lessons() {
		names = append(names, l.Name)
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}
