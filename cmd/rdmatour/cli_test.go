package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui"
)

func TestParseArgs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := env(nil)
	tests := []struct {
		name   string
		args   []string
		getenv func(string) string
		check  func(t *testing.T, o options)
		err    string // substring of a usage error; "" = no error
	}{
		{"seed server form", []string{"server", "7471"}, none, func(t *testing.T, o options) {
			if o.cmd != "server" || o.port != 7471 {
				t.Errorf("%+v", o)
			}
		}, ""},
		{"server flags", []string{"server", "--port", "9000", "--bind", "10.0.0.1", "--notify", "imm", "--plain"}, none, func(t *testing.T, o options) {
			if o.port != 9000 || o.bind != "10.0.0.1" || o.notify != steps.NotifyImm || !o.plain {
				t.Errorf("%+v", o)
			}
		}, ""},
		{"seed client with notify", []string{"client", "10.0.0.1", "7471", "doorbell"}, none, func(t *testing.T, o options) {
			if o.server != "10.0.0.1" || o.port != 7471 || o.notify != steps.NotifyDoorbell || o.src != "" {
				t.Errorf("%+v", o)
			}
		}, ""},
		{"seed client with src and notify", []string{"client", "10.0.0.1", "7471", "10.0.0.2", "send"}, none, func(t *testing.T, o options) {
			if o.src != "10.0.0.2" || o.notify != steps.NotifySend {
				t.Errorf("%+v", o)
			}
		}, ""},
		{"seed client with src only", []string{"client", "10.0.0.1", "7471", "10.0.0.2"}, none, func(t *testing.T, o options) {
			if o.src != "10.0.0.2" || o.notify != steps.NotifySend {
				t.Errorf("%+v", o)
			}
		}, ""},
		{"flags after positionals", []string{"client", "server.lab", "--notify=imm", "--message", "hi", "--timeout", "5s"}, none, func(t *testing.T, o options) {
			if o.server != "server.lab" || o.notify != steps.NotifyImm || o.message != "hi" || time.Duration(o.timeout) != 5*time.Second || o.port != 7471 {
				t.Errorf("%+v", o)
			}
		}, ""},
		{"--message-size", []string{"client", "10.0.0.1", "--message-size", "3000", "--message", "big"}, none, func(t *testing.T, o options) {
			if cfg := o.config(steps.Client); cfg.MessageSize != 3000 || cfg.Message != "big" {
				t.Errorf("config %+v", cfg)
			}
		}, ""},
		{"--message-size exactly the buffer", []string{"demo", "--message-size", "4096"}, none, func(t *testing.T, o options) {
			if o.msgSize != 4096 {
				t.Errorf("%+v", o)
			}
		}, ""},
		{"lang from LANG", []string{"demo"}, env(map[string]string{"LANG": "zh_CN.UTF-8"}), func(t *testing.T, o options) {
			if o.lang != "zh" {
				t.Errorf("lang = %q", o.lang)
			}
		}, ""},
		{"LC_ALL wins over LANG", []string{"demo"}, env(map[string]string{"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}), func(t *testing.T, o options) {
			if o.lang != "en" {
				t.Errorf("lang = %q", o.lang)
			}
		}, ""},
		{"--lang both", []string{"demo", "--lang", "both"}, none, func(t *testing.T, o options) {
			if o.lang != "both" {
				t.Errorf("lang = %q", o.lang)
			}
		}, ""},
		{"version", []string{"--version"}, none, func(t *testing.T, o options) {
			if o.cmd != "version" {
				t.Errorf("%+v", o)
			}
		}, ""},
		{"bad lang", []string{"demo", "--lang", "fr"}, none, nil, "unknown language"},
		{"bad backend", []string{"demo", "--backend", "gpu"}, none, nil, "unknown backend"},
		{"bad port", []string{"server", "0"}, none, nil, "out of range"},
		{"bad port flag", []string{"server", "--port", "65536"}, none, nil, "out of range"},
		{"missing flag value", []string{"client", "1.2.3.4", "--notify"}, none, nil, "needs a value"},
		{"extra server args", []string{"server", "1", "2"}, none, nil, "at most one"},
		{"demo takes no args", []string{"demo", "x"}, none, nil, "takes no arguments"},
		{"unknown pause step", []string{"server", "--pause-at", "nope"}, none, nil, "unknown step"},
		{"negative timeout", []string{"server", "--timeout", "-1s"}, none, nil, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseArgs(tt.args, tt.getenv, io.Discard)
			if tt.err != "" {
				var ue *usageError
				if !errors.As(err, &ue) || !contains(ue.msg.EN, tt.err) {
					t.Fatalf("err = %v, want usage error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, o)
		})
	}
}

func TestHelpOnEverySubcommand(t *testing.T) {
	for _, cmd := range []string{"server", "client", "demo", "devices", "doctor"} {
		_, err := parseArgs([]string{cmd, "--help"}, func(string) string { return "" }, io.Discard)
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s --help: %v", cmd, err)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// The exit status says how the tour ended, the same in plain mode and in
// the TUI (exitStatusHelp).
func TestExitStatus(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		says string
	}{
		{"completed", nil, 0, ""},
		{"usage", usagef("unknown command %q", "x"), 2, `rdmatour: unknown command "x"`},
		{"Ctrl-C in plain mode", fmt.Errorf("step listen: %w", context.Canceled), 130, "rdmatour: interrupted; everything was released"},
		{"q or Ctrl-C in the TUI before the end", tuiOutcome(tui.ErrQuit), 130, "rdmatour: interrupted; everything was released"},
		{"the TUI after the end", tuiOutcome(nil), 0, ""},
		{"a failed step", tuiOutcome(errors.New("boom")), 1, "rdmatour: the call failed (boom)"},
	}
	for _, tt := range tests {
		var errb strings.Builder
		c := console{stderr: &errb}
		if code := c.finish(options{lang: text.EN}, tt.err); code != tt.code || strings.TrimSpace(errb.String()) != tt.says {
			t.Errorf("%s: exit %d saying %q, want %d saying %q", tt.name, code, errb.String(), tt.code, tt.says)
		}
	}
	// In zh the last line is Chinese too (it was left in English).
	var errb strings.Builder
	if code := (console{stderr: &errb}).finish(options{lang: text.ZH}, tuiOutcome(tui.ErrQuit)); code != 130 ||
		strings.TrimSpace(errb.String()) != "rdmatour：已中断；所有资源都已释放" {
		t.Errorf("zh interrupt: exit %d saying %q", code, errb.String())
	}
}

// Every flag's help names its value and gives its default once.
func TestFlagHelp(t *testing.T) {
	for _, cmd := range []string{"server", "client", "demo", "lessons"} {
		var out strings.Builder
		if _, err := parseArgs([]string{cmd, "--help"}, func(string) string { return "" }, &out); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		help := out.String()
		for _, line := range strings.Split(help, "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s: two defaults: %q", cmd, line)
			}
			if strings.HasPrefix(strings.TrimSpace(line), "-") && strings.Contains(line, " value") {
				t.Errorf("%s: an unnamed value: %q", cmd, line)
			}
		}
		for _, want := range []string{"Usage: rdmatour " + cmd, "-lang LANG"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s --help lacks %q:\n%s", cmd, want, help)
			}
		}
		if cmd != "lessons" {
			for _, want := range []string{"-port PORT", "rdma_cm PORT, 1-65535 (default 7471)\n", "-lesson NAME", "130 interrupted (Ctrl-C, or q before the end)"} {
				if !strings.Contains(help, want) {
					t.Errorf("%s --help lacks %q:\n%s", cmd, want, help)
				}
			}
		}
	}
}

// TestUsageErrorInChinese: a value the tour refuses is explained in the
// language --lang asks for (both: English, then Chinese).
func TestUsageErrorInChinese(t *testing.T) {
	for _, tt := range []struct{ lang, want, not string }{
		{"zh", "--message-size 5000 超出范围", "out of range"},
		{"en", "--message-size 5000 is out of range", "超出范围"},
		{"both", "is out of range: the bytes to WRITE, NUL included, at most 4096 (the data buffer's size)\nrdmatour：--message-size 5000 超出范围", "\x00"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"demo", "--lang", tt.lang, "--message-size", "5000", "--backend", "sim", "--plain"},
			strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
		if code != 2 || !strings.Contains(stderr.String(), tt.want) || strings.Contains(stderr.String(), tt.not) {
			t.Errorf("--lang %s: exit %d, stderr %q, want it to contain %q and not %q", tt.lang, code, stderr.String(), tt.want, tt.not)
		}
	}
}
