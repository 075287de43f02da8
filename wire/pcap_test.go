package wire

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func writeSamplePcap(t *testing.T) (string, []sampleFrame) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewPcapWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	samples := sampleFrames()
	for i, s := range samples {
		f := s.frame()
		b, err := f.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFrame(time.Unix(1700000000, int64(i)*1000), b); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "tour.pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, samples
}

func TestPcapReadBack(t *testing.T) {
	path, samples := writeSamplePcap(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	frames, err := ReadPcap(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != len(samples) {
		t.Fatalf("read %d frames, wrote %d", len(frames), len(samples))
	}
	for i, b := range frames {
		got, err := DecodeFrame(b)
		if err != nil || !got.ICRCValid {
			t.Errorf("frame %d (%s): err %v, ICRC valid %v", i+1, samples[i].name, err, got.ICRCValid)
		}
	}
}

// TestTsharkDissects is the check that matters: Wireshark's own
// InfiniBand dissector reads every frame as we meant it, with no
// malformed packet and no expert warning.
func TestTsharkDissects(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark is not installed (Debian package tshark); the test deps install it")
	}
	path, samples := writeSamplePcap(t)
	out, err := exec.Command("tshark", "-r", path, "-T", "fields", "-E", "separator=|",
		"-e", "_ws.col.Info", "-e", "_ws.malformed", "-e", "_ws.expert.severity").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	want := map[string]string{
		"REQ": "CM: ConnectRequest", "REP": "CM: ConnectReply", "RTU": "CM: ReadyToUse",
		"WRITE": "RC RDMA Write Only QP=0x000012", "ACK": "RC Acknowledge QP=0x000011",
		"WRITE_IMM": "RC RDMA Write Only Immediate QP=0x000012", "RNR_NAK": "RC Acknowledge QP=0x000011",
		"NAK": "RC Acknowledge QP=0x000011 [Remote Access Error]", "SEND": "RC Send Only QP=0x000012",
		"READ_REQ": "RC RDMA Read Request QP=0x000012", "READ_RESP": "RC RDMA Read Response Only QP=0x000011",
		"FETCH_ADD": "RC Fetch Add QP=0x000012", "ATOMIC_ACK": "RC Atomic Acknowledge QP=0x000011",
		"UD_SEND_IMM": "UD Send Only Immediate QP=0x000013",
		"DREQ":        "CM: DisconnectRequest", "DREP": "CM: DisconnectReply",
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(samples) {
		t.Fatalf("tshark printed %d lines for %d frames:\n%s", len(lines), len(samples), out)
	}
	for i, line := range lines {
		f := strings.Split(line, "|")
		info, malformed, expert := strings.TrimSpace(f[0]), f[1], f[2]
		if info != want[samples[i].name] || malformed != "" || expert != "" {
			t.Errorf("frame %d (%s): tshark says %q (malformed %q, expert %q), want %q",
				i+1, samples[i].name, info, malformed, expert, want[samples[i].name])
		}
	}
}

// TestTsharkFields checks header fields as Wireshark reads them.
func TestTsharkFields(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark is not installed")
	}
	path, _ := writeSamplePcap(t)
	fields := []string{"infiniband.bth.psn", "infiniband.reth.va", "infiniband.reth.r_key",
		"infiniband.reth.dmalen", "infiniband.aeth.msn", "infiniband.cm.req.localqpn",
		"infiniband.cm.req.ip_cm.sip4", "infiniband.cm.req.startpsn"}
	args := []string{"-r", path, "-T", "fields", "-E", "separator=|", "-Y", "frame.number == 1 || frame.number == 4"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	out, err := exec.Command("tshark", args...).Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{
		"0|||||0x000011|10.0.3.2|0x001234",
		"4660|0x00007f5a08009000|0x000006d0|42||||",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tshark fields:\n got %q\nwant %q", got, want)
	}
}
