package main

import (
	"os"
	"strings"
	"testing"
)

// CI runs .ci/run, which must run the test command the README gives, and
// the README must name the command that runs the program.
func TestREADMECommandsMatchCI(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	const testCmd, runCmd = "bash scripts/test.sh", "scripts/run.sh demo"
	for _, want := range []string{testCmd, runCmd} {
		if !strings.Contains(string(readme), "\n"+want+"\n") {
			t.Errorf("README.md does not give the command %q on a line of its own", want)
		}
	}
	if !strings.Contains(string(ci), testCmd) {
		t.Errorf(".ci/run does not run %q", testCmd)
	}
	zh, err := os.ReadFile("../../README.zh.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{testCmd, runCmd} {
		if !strings.Contains(string(zh), want) {
			t.Errorf("README.zh.md does not give %q", want)
		}
	}
}
