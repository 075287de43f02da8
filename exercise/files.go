package exercise

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdmatour/rdmatour/export"
	"github.com/rdmatour/rdmatour/steps"
)

// header is the comment the exercise's program starts with: what it is,
// how to build and check it, what it needs, how to run it by hand.
func (e Exercise) header(solution bool) string {
	var b strings.Builder
	file := e.FileName()
	if solution {
		file = e.SolutionFileName()
	}
	fmt.Fprintf(&b, "/*\n * %s: rdmatour exercise %s (%s), the %s side.\n", file, e.Name, e.Kind.Words().EN, e.Role)
	fmt.Fprintf(&b, " * %s.\n", export.Comment(e.Title.EN))
	if solution {
		b.WriteString(" * This is the reference solution.\n")
	}
	fmt.Fprintf(&b, " *\n * The task and the hints: docs/en/%s.md, and\n * rdmatour exercise hint %s (the next of three).\n *\n", e.Page(), e.Name)
	fmt.Fprintf(&b, " * Build: make (or gcc -std=c99 -Wall -Werror -o %s %s.c -libverbs -lrdmacm)\n", e.Name, e.Name)
	fmt.Fprintf(&b, " * Check: rdmatour exercise check %s --dir .\n *\n", e.Name)
	for _, line := range export.Needs() {
		b.WriteString(strings.TrimRight(" * "+export.Comment(line), " ") + "\n")
	}
	b.WriteString(" *\n * Run it by hand against rdmatour (SERVER_IP: the server's address on\n * its RDMA interface), first, then second:\n")
	for _, cmd := range e.byHand() {
		fmt.Fprintf(&b, " *   %s\n", export.Comment(cmd))
	}
	b.WriteString(" */\n")
	return b.String()
}

// byHand are the two commands that run the learner's program against
// rdmatour, in the order to start them.
func (e Exercise) byHand() [2]string {
	cfg := e.Options().Config()
	cfg.Role = e.Role
	cmds := export.AgainstRdmatour(cfg)
	for i := range cmds {
		cmds[i] = strings.Replace(cmds[i], "./"+export.FileName(e.Role)+" ", "./"+e.Name+" ", 1)
	}
	return cmds
}

// makefile builds the exercise with the flags every test builds with.
func (e Exercise) makefile() string {
	return fmt.Sprintf(`# rdmatour exercise %[1]s: make builds it, make check checks it.
CC ?= gcc
CFLAGS = -std=c99 -Wall -Werror -g
LDLIBS = -libverbs -lrdmacm

%[1]s: %[1]s.c
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

check:
	rdmatour exercise check %[1]s --dir .

.PHONY: check
`, e.Name)
}

// readme is the short README start writes: the task in a few lines, and
// the commands.
func (e Exercise) readme(task string) string {
	side := map[steps.Role]string{steps.Server: "server", steps.Client: "client"}[e.Role]
	cmds := e.byHand()
	return fmt.Sprintf(`# rdmatour exercise %[1]s: %[2]s

%[3]s

Your program is %[4]s, the %[5]s side of the tour; rdmatour plays the other side.

    make                                   # build it (-Wall -Werror)
    rdmatour exercise check %[1]s --dir .   # build it, run it against rdmatour, get a verdict
    rdmatour exercise hint %[1]s            # the next of three hints
    rdmatour exercise solution %[1]s --dir . # writes %[6]s beside yours

By hand, first, then second (SERVER_IP: the server's address on its RDMA interface):

    %[7]s
    %[8]s

The page: docs/en/%[9]s.md (Chinese: docs/zh/%[9]s.md).
`, e.Name, e.Title.EN, task, e.FileName(), side, e.SolutionFileName(), cmds[0], cmds[1], e.Page())
}

// ExistsError is a learner's file that start would overwrite.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already exists: it may hold your work. Start in another --dir, or remove it first", e.Path)
}

// Start writes the learner's program, the Makefile and the README into
// dir. It never overwrites the learner's program.
func (e Exercise) Start(dir string, p Programs, task string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	prog := filepath.Join(dir, e.FileName())
	if _, err := os.Stat(prog); err == nil {
		return &ExistsError{Path: prog}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	files := []struct{ name, content string }{
		{e.FileName(), p.Learner}, {"Makefile", e.makefile()}, {"README.md", e.readme(task)},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteSolution writes the reference solution beside the learner's
// program, as NAME.solution.c; it returns the path.
func (e Exercise) WriteSolution(dir string, p Programs) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, e.SolutionFileName())
	return path, os.WriteFile(path, []byte(p.Solution), 0o644)
}
