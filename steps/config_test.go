package steps

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs/sim"
)

// Every typed value's String parses back to itself, and a bad name is
// refused with the list of good ones.
func TestTypedValuesRoundTrip(t *testing.T) {
	check := func(name string, s string, back func(string) (string, error)) {
		t.Helper()
		got, err := back(s)
		if err != nil || got != s {
			t.Errorf("%s: Parse(%q).String() = %q, %v", name, s, got, err)
		}
	}
	for _, r := range []Role{Server, Client} {
		check("role", r.String(), func(s string) (string, error) { v, err := ParseRole(s); return v.String(), err })
	}
	for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
		check("notify", n.String(), func(s string) (string, error) { v, err := ParseNotify(s); return v.String(), err })
	}
	for _, tr := range []Track{TrackCM, TrackManual} {
		check("track", tr.String(), func(s string) (string, error) { v, err := ParseTrack(s); return v.String(), err })
	}
	for _, l := range Lessons() {
		check("lesson", l.String(), func(s string) (string, error) { v, err := ParseLesson(s); return v.String(), err })
	}
	bad := []struct {
		name string
		err  error
		want string
	}{
		{"role", second(ParseRole("peer")), "use server or client"},
		{"notify", second(ParseNotify("pigeon")), "use send, doorbell or imm"},
		{"track", second(ParseTrack("auto")), "use cm or manual"},
		{"lesson", second(ParseLesson("nope")), "rdmatour lessons"},
	}
	for _, b := range bad {
		if b.err == nil || !strings.Contains(b.err.Error(), b.want) {
			t.Errorf("%s: err = %v, want it to say %q", b.name, b.err, b.want)
		}
	}
	if Role(9).String() != "" || Notify(9).String() != "" || Track(9).String() != "" {
		t.Error("an unknown value must not print as a known one")
	}
}

func second[T any](_ T, err error) error { return err }

func TestConfigValidate(t *testing.T) {
	srv := Config{Role: Server}
	cli := Config{Role: Client, Server: netip.MustParseAddrPort("10.0.0.1:7471")}
	with := func(c Config, f func(*Config)) Config { f(&c); return c }
	tests := []struct {
		name string
		cfg  Config
		want string // "" = valid
	}{
		{"server defaults", srv, ""},
		{"client defaults", cli, ""},
		{"lesson", with(cli, func(c *Config) { c.Lesson = lessonNamed("bad-rkey") }), ""},
		{"manual track", with(srv, func(c *Config) { c.Track = TrackManual }), ""},
		{"unknown role", with(srv, func(c *Config) { c.Role = 7 }), "unknown role 7"},
		{"unknown notify", with(cli, func(c *Config) { c.Notify = 7 }), "unknown notify mode 7"},
		{"unknown track", with(cli, func(c *Config) { c.Track = 7 }), "unknown track 7"},
		{"client without server", Config{Role: Client}, "needs the server's address"},
		{"client to port 0", with(cli, func(c *Config) { c.Server = netip.MustParseAddrPort("10.0.0.1:0") }), "port 1-65535"},
		{"message too long", with(cli, func(c *Config) { c.Message = strings.Repeat("x", BufSize) }), "at most 4095 fit"},
		{"negative timeout", with(cli, func(c *Config) { c.Timeout = -time.Second }), "--timeout -1s: must be positive"},
		{"negative wait-client", with(srv, func(c *Config) { c.AcceptTimeout = -time.Second }), "--wait-client -1s: must not be negative"},
		{"rnr retry 8", with(cli, func(c *Config) { c.RNRRetry = 8 }), "--rnr-retry 8 is out of range: 0..7"},
		{"lesson on the manual track", with(cli, func(c *Config) { c.Lesson = lessonNamed("bad-rkey"); c.Track = TrackManual }), "cannot be combined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a *ConfigError saying %q", err, tt.want)
			}
			// NewSession refuses exactly what Validate refuses.
			_, nerr := NewSession(with(tt.cfg, func(c *Config) { c.Provider = sim.New(sim.Options{}) }))
			if !errors.As(nerr, &ce) || nerr.Error() != err.Error() {
				t.Errorf("NewSession: %v, want %v", nerr, err)
			}
		})
	}
}
