package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
)

// The workshop in plain mode (--plain, or no terminal) takes the
// instructor's commands on standard input, one a line, so a script or a
// test can run a room as a person does from the roster screen. A room
// whose standard input is closed (nohup, systemd, < /dev/null) just goes
// on serving: end of input is not "quit", Ctrl-C and SIGHUP still end it.

// instructorCommand is one line the instructor may type.
type instructorCommand struct {
	name, help string
	// run does it; quit ends the workshop.
	run func(args []string) (say string, quit bool)
}

// instructorCommands reads commands from in until quit, end of ctx, or
// forever after in ends, printing each answer to out under mu.
func instructorCommands(ctx context.Context, in io.Reader, out io.Writer, mu *sync.Mutex, save func() (string, error)) {
	cmds := workshopCommands(save)
	lines := make(chan string)
	go func() { // ends with the process when in never ends
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case line := <-lines:
			say, quit := runInstructorLine(cmds, line)
			if say != "" {
				mu.Lock()
				fmt.Fprintln(out, "[workshop] "+say)
				mu.Unlock()
			}
			if quit {
				return
			}
		}
	}
}

// workshopCommands are the plain room's commands, in the order help
// lists them.
func workshopCommands(save func() (string, error)) []instructorCommand {
	return []instructorCommand{
		{name: "results", help: "save the room's results now (--results FILE)", run: func([]string) (string, bool) {
			where, err := save()
			if err != nil {
				return "results: " + err.Error(), false
			}
			return where, false
		}},
		{name: "quit", help: "end the workshop: every attendee is torn down, then the roster", run: func([]string) (string, bool) {
			return "quit: ending the workshop", true
		}},
	}
}

// runInstructorLine runs one line: a command, help, or an error naming
// the commands there are.
func runInstructorLine(cmds []instructorCommand, line string) (string, bool) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", false
	}
	for _, c := range cmds {
		if c.name == f[0] {
			return c.run(f[1:])
		}
	}
	var names, help []string
	for _, c := range cmds {
		names = append(names, c.name)
		help = append(help, c.name+": "+c.help)
	}
	if f[0] == "help" {
		return "commands, one a line: " + strings.Join(help, "; "), false
	}
	return fmt.Sprintf("%q is not a command; the commands are %s (and help)", safeWord(f[0]), strings.Join(names, ", ")), false
}

// safeWord is a word the instructor typed, cut short: it is echoed back.
func safeWord(s string) string {
	if r := []rune(s); len(r) > 20 {
		return string(r[:19]) + "…"
	}
	return s
}
