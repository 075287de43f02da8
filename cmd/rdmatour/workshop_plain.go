package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/workshop"
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
func instructorCommands(ctx context.Context, in io.Reader, out io.Writer, mu *sync.Mutex, room *workshop.Room, save func(path string) (string, error)) {
	cmds := workshopCommands(room, save)
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
// lists them. save writes the results to path ("": where --results
// says).
func workshopCommands(room *workshop.Room, save func(path string) (string, error)) []instructorCommand {
	return []instructorCommand{
		{name: "lesson", help: "lesson NAME: the room runs lesson NAME from the next run on (lesson none: the plain tour; lesson next: the tour's next lesson)", run: func(args []string) (string, bool) {
			return setLessonLine(room, args), false
		}},
		{name: "reveal", help: "show the room's answers to the lesson's question, next to what happened", run: func([]string) (string, bool) {
			room.Reveal()
			return tallyLines(room.Tally(), "reveal"), false
		}},
		{name: "revote", help: "ask again: each attendee's next run is their second vote, hidden until reveal", run: func([]string) (string, bool) {
			room.Revote()
			return tallyLines(room.Tally(), "revote: round 2"), false
		}},
		{name: "results", help: "results [FILE]: save the room's results now (to FILE, or where --results says)", run: func(args []string) (string, bool) {
			where, err := save(strings.Join(args, " "))
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

// setLessonLine runs `lesson NAME` and says what the room runs now.
func setLessonLine(room *workshop.Room, args []string) string {
	if len(args) != 1 {
		return fmt.Sprintf("lesson: give one name: none, next, or one of %v", workshop.LessonsOf(room.Plan().Tour))
	}
	switch args[0] {
	case "next":
		room.NextLesson()
	case "none":
		room.SetLesson(nil)
	default:
		l, err := steps.ParseLesson(args[0])
		if err == nil {
			err = room.SetLesson(l)
		}
		if err != nil {
			return "lesson: " + err.Error()
		}
	}
	return "the room runs " + planWords(room.Plan()) + " from the next run on; attendees start `rdmatour client` again to follow it"
}

// tallyLines are the question's tally as the plain room prints it, one
// "[workshop] " line each, after what happened.
func tallyLines(t workshop.Tally, what string) string {
	lines := t.Lines(text.EN)
	if lines == nil {
		return what + ": the room's lesson asks no question (lesson NAME picks one)"
	}
	return what + "\n[workshop] " + strings.Join(lines, "\n[workshop] ")
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
