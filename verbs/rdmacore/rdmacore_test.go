//go:build linux && cgo

package rdmacore

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

func open(t testing.TB) *Provider {
	t.Helper()
	p, err := Open()
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return p
}

func TestOpen(t *testing.T) {
	p := open(t)
	if p.Name() != "rdma" || p.Simulated() {
		t.Fatalf("Name %q Simulated %v", p.Name(), p.Simulated())
	}
	devs, err := p.Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	t.Logf("%d device(s)", len(devs))
	for _, d := range devs {
		t.Logf("device %s transport %s guid %s netdevs %v", d.Name, d.Transport, d.NodeGUID, d.Netdevs)
		for _, pa := range d.Ports {
			t.Logf("  port %d state %s mtu %d/%d link %s speed %q max_msg %d", pa.Num, pa.State, pa.ActiveMTU, pa.MaxMTU, pa.LinkLayer, pa.ActiveSpeed, pa.MaxMsgSize)
			for _, g := range pa.GIDs {
				t.Logf("    gid[%d] %s %s", g.Index, g.GID, g.Type)
			}
		}
	}
	if n := p.Live().Total(); n != 0 {
		t.Fatalf("Live after Devices: %+v", p.Live())
	}
}

func TestLibraryNames(t *testing.T) {
	if VerbsLibrary != "libibverbs.so.1" || CMLibrary != "librdmacm.so.1" {
		t.Fatalf("library names %q %q", VerbsLibrary, CMLibrary)
	}
}

func TestWCStatusStringsMatchLibibverbs(t *testing.T) {
	p := open(t)
	for s := 0; s <= 23; s++ {
		if got, want := verbs.WCStatus(s).String(), p.WCStatusStr(s); got != want {
			t.Errorf("status %d: verbs says %q, ibv_wc_status_str says %q", s, got, want)
		}
	}
}

func TestEventStringsMatchLibrdmacm(t *testing.T) {
	p := open(t)
	for e := 0; e <= 16; e++ {
		if got, want := verbs.CMEventType(e).String(), p.EventStr(e); got != want {
			t.Errorf("event %d: verbs says %q, rdma_event_str says %q", e, got, want)
		}
	}
}

func TestOpenMissingLibrary(t *testing.T) {
	for _, tc := range []struct {
		verbsLib, cmLib, want string
	}{
		{VerbsLibrary, "librdmacm-missing.so.1", "librdmacm-missing.so.1 not found: install rdma-core / librdmacm1"},
		{"libibverbs-missing.so.1", CMLibrary, "libibverbs-missing.so.1 not found: install rdma-core / libibverbs1"},
	} {
		p, err := openWith(tc.verbsLib, tc.cmLib)
		if err == nil || p != nil {
			t.Fatalf("openWith(%q, %q) succeeded", tc.verbsLib, tc.cmLib)
		}
		var le *LoadError
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), tc.want) || errors.Unwrap(err) == nil {
			t.Fatalf("error %q (%T), want prefix %q and a cause", err, err, tc.want)
		}
		t.Logf("%v", err)
	}
}

// TestEventChannel: without RDMA in the kernel the first rdma_cm
// call fails with a verbs.Error naming it; with RDMA it succeeds.
func TestEventChannel(t *testing.T) {
	p := open(t)
	ch, err := p.CreateEventChannel()
	if err != nil {
		var ve *verbs.Error
		if !errors.As(err, &ve) || ve.Func != "rdma_create_event_channel" {
			t.Fatalf("CreateEventChannel: %v (%T)", err, err)
		}
		t.Logf("no rdma_cm here: %v", err)
		return
	}
	if ch.FD() < 0 {
		t.Fatalf("fd %d", ch.FD())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = ch.GetEvent(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("GetEvent on an idle channel: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("GetEvent took %v to notice its context", d)
	}
	id, err := ch.CreateID(verbs.PSTCP)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Destroy(); !errors.Is(err, syscall.EBUSY) {
		t.Fatalf("Destroy with a live id: %v", err)
	}
	if id.Device() != nil || id.QP() != nil {
		t.Fatalf("unbound id has a device or QP")
	}
	if err := id.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := ch.Destroy(); err != nil {
		t.Fatal(err)
	}
	if n := p.Live().Total(); n != 0 {
		t.Fatalf("Live: %+v", p.Live())
	}
}
