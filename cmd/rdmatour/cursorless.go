package main

import (
	"context"
	"errors"
	"os/exec"
	"time"

	"github.com/rdmatour/rdmatour/text"
)

// cursorless says the terminal TERM names cannot address the cursor, and
// why, so the tour prints plain text instead of a full-screen UI that
// would be garbage there (T9 of the hostile review; issue 26 item 7):
// TERM=dumb (an Emacs shell buffer, some CI logs), or a terminfo entry
// without cup (cursor_address), as tput(1) reads it. A terminal terminfo
// does not know at all is left alone: most such terminals (a newer
// emulator on an older machine) speak ANSI, and the UI works there.
func cursorless(term string) (bool, text.Text) {
	if term == "dumb" {
		return true, text.Text{EN: "TERM=dumb: this terminal cannot move the cursor, so the tour is printed as plain text (for the full-screen UI run it in a terminal with TERM=xterm-256color; --plain asks for this mode without this line)",
			ZH: "TERM=dumb：这个终端不能移动光标，所以教程以纯文本输出（要用全屏界面，请在 TERM=xterm-256color 的终端里运行；加 --plain 则直接用这种模式，不再显示这一行）"}
	}
	if term == "" || !terminfoLacksCup(term) {
		return false, text.Text{}
	}
	return true, text.Text{EN: "TERM=" + term + ": its terminfo entry has no cursor addressing (cup), so the tour is printed as plain text (for the full-screen UI run it in a terminal with TERM=xterm-256color; --plain asks for this mode without this line)",
		ZH: "TERM=" + term + "：它的 terminfo 条目没有光标定位（cup），所以教程以纯文本输出（要用全屏界面，请在 TERM=xterm-256color 的终端里运行；加 --plain 则直接用这种模式，不再显示这一行）"}
}

// terminfoLacksCup: tput exits 1 when the entry exists but lacks the
// capability (3 for an unknown terminal, 0 when it has it).
func terminfoLacksCup(term string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := exec.CommandContext(ctx, "tput", "-T", term, "cup", "0", "0").Run()
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == 1
}
