package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTwoHostsTUI runs in QEMU guest B of scripts/twohosts.sh: the client's
// full-screen UI in tmux against the server in guest A, on a real wire,
// with --pcap. Once the tour is done the wire view must list the captured
// packets under the steps that caused them — not the one-host note.
func TestTwoHostsTUI(t *testing.T) {
	peer, pcap := os.Getenv("RDMATOUR_TWOHOSTS_PEER"), os.Getenv("RDMATOUR_TWOHOSTS_PCAP")
	if peer == "" {
		t.Skip("runs in guest B of scripts/twohosts.sh (RDMATOUR_TWOHOSTS_PEER)")
	}
	s := clientTUI(t, peer, pcap, "")
	for _, want := range []string{"RDMA_WRITE_ONLY", "▸ RDMA WRITE into the server's buffer", "AETH ACK", "CM DREQ"} {
		if !strings.Contains(s, want) {
			t.Errorf("the wire view lacks %q:\n%s", want, s)
		}
	}
}

// TestSiwTwoHostsTUI runs in guest B of scripts/qemu/siw-two-guests.sh,
// on Soft-iWARP: the client's full-screen UI, the write tour with
// --notify send. Its wire view must list the iWARP messages of its TCP
// connection under the steps that caused them: the MPA frames, the
// tagged RDMA Write and the untagged Send, each its last segment.
func TestSiwTwoHostsTUI(t *testing.T) {
	peer, pcap := os.Getenv("RDMATOUR_SIW_TUI_PEER"), os.Getenv("RDMATOUR_SIW_TUI_PCAP")
	if peer == "" {
		t.Skip("runs in guest B of scripts/qemu/siw-two-guests.sh (RDMATOUR_SIW_TUI_PEER)")
	}
	s := clientTUI(t, peer, pcap, "--port 7471 --notify send")
	for _, want := range []string{"→ out MPA Request rev 2", "← in  MPA Reply rev 2", "▸ RDMA WRITE into the server's buffer",
		"→ out RDMA Write STag=0x", "DDP tagged TO=0x", "→ out Send QN=0 MSN=1 MO=0 last"} {
		if !strings.Contains(s, want) {
			t.Errorf("the wire view lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "no packets yet") || strings.Contains(s, "AETH") {
		t.Errorf("an iWARP wire view with no packets, or RoCE's:\n%s", s)
	}
}

// clientTUI runs the client's full-screen UI in tmux against peer with
// --pcap and flags, steps through the 18 steps of the write tour, and
// returns the last screen (also kept next to the pcap, as .screen).
func clientTUI(t *testing.T, peer, pcap, flags string) string {
	t.Helper()
	sock := "rdmatour-twohosts"
	tmux := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
		return string(out)
	}
	cmd := fmt.Sprintf("%s client %s --backend rdma --timeout 120s --pcap %s %s; echo EXIT=$?; sleep 60", binPath, peer, pcap, flags)
	tmux("new-session", "-d", "-x", "200", "-y", "60", cmd)
	t.Cleanup(func() { tmux("kill-server") })
	screen := func() string { return tmux("capture-pane", "-p") }
	waitScreen := func(want string, d time.Duration) string {
		t.Helper()
		deadline := time.Now().Add(d)
		for time.Now().Before(deadline) {
			if s := screen(); strings.Contains(s, want) {
				return s
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("the screen never showed %q:\n%s", want, screen())
		return ""
	}
	s := waitScreen("/18", 60*time.Second)
	for i := 1; i <= 18; i++ {
		tmux("send-keys", "Enter")
		s = waitScreen(fmt.Sprintf("%d/18", i), 90*time.Second)
	}
	if strings.Contains(s, "Both ends are this machine") || strings.Contains(s, "SIMULATED") {
		t.Errorf("two hosts shown as one, or as the simulated NIC:\n%s", s)
	}
	os.WriteFile(pcap+".screen", []byte(s), 0o644)
	tmux("send-keys", "q")
	waitScreen("EXIT=0", 60*time.Second)
	return s
}
