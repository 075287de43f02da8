package steps_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// Every tour kind crosses as its wire byte and comes back as itself.
func TestHelloRoundTrip(t *testing.T) {
	cases := []steps.Hello{
		steps.HelloFor(steps.TourWrite, ""),
		steps.HelloFor(steps.TourWrite, "no-recv"),
		steps.HelloFor(steps.TourRead, ""),
		steps.HelloFor(steps.TourAtomic, "post-before-connect"),
		steps.HelloFor(steps.TourUD, strings.Repeat("a", privdata.MaxHelloLesson)),
	}
	for _, h := range cases {
		b, err := h.Marshal()
		if err != nil {
			t.Fatalf("%+v: %v", h, err)
		}
		padded := append(b, make([]byte, verbs.MaxConnectPrivateData-len(b))...)
		got, found, err := steps.ParseHello(padded)
		if err != nil || !found || got != h {
			t.Errorf("round trip of %+v: got %+v found=%v err=%v", h, got, found, err)
		}
	}
}

// A tour byte this rdmatour does not know is a broken hello, not a tour.
func TestParseHelloUnknownTour(t *testing.T) {
	p := []byte{'r', 'd', 'm', 'T', 1, 9, 0}
	h, found, err := steps.ParseHello(p)
	var he *privdata.HelloError
	if !found || !errors.As(err, &he) || !strings.Contains(err.Error(), "unknown tour kind 9") || h != (steps.Hello{}) {
		t.Errorf("got %+v found=%v err=%v, want a HelloError naming tour kind 9", h, found, err)
	}
	if _, found, err := steps.ParseHello(make([]byte, 56)); found || err != nil {
		t.Errorf("zero padding: found=%v err=%v", found, err)
	}
}

// Every lesson's name fits a hello, so Marshal never fails in a tour.
func TestHelloFitsEveryLesson(t *testing.T) {
	for _, l := range steps.Lessons() {
		if _, err := steps.HelloFor(steps.TourWrite, l.Name).Marshal(); err != nil {
			t.Errorf("lesson %s: %v", l.Name, err)
		}
	}
}

func TestParseTourKind(t *testing.T) {
	for _, s := range []string{"", "write", "read", "atomic", "ud"} {
		k, err := steps.ParseTourKind(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
		}
		if s != "" && k.String() != s {
			t.Errorf("%q round trips as %q", s, k)
		}
	}
	if _, err := steps.ParseTourKind("rc"); err == nil || !strings.Contains(err.Error(), "write, read, atomic, ud") {
		t.Errorf("unknown kind: %v", err)
	}
}
