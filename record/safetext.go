package record

import (
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/steps/privdata"
)

// A recording is input from anywhere (a file mailed to a presenter), and
// its text reaches the terminal: C lines, results, notes, titles. A file
// made by rdmatour holds only printable text there (a peer's bytes are
// escaped before they become text, and raw bytes are stored as base64),
// so any string with a control or format character — ESC, C1 controls,
// bidirectional overrides — is refused rather than shown.

// checkText reports the first string in the JSON line that is not safe to
// print on a terminal.
func checkText(line []byte) error {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return fmt.Errorf("not valid JSON (%v): the file is damaged", err)
	}
	return walkText(v)
}

func walkText(v any) error {
	switch x := v.(type) {
	case string:
		return safeText(x)
	case []any:
		for _, e := range x {
			if err := walkText(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range x {
			if err := safeText(k); err != nil {
				return err
			}
			if err := walkText(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// safeText allows printable characters, spaces, newlines and tabs.
// U+FFFD is printable (it is what JSON makes of bytes that are not
// UTF-8) and controls nothing.
func safeText(s string) error {
	for _, r := range s {
		if r == '\n' || r == '\t' || r == ' ' || unicode.IsPrint(r) {
			continue
		}
		return fmt.Errorf("the text %q holds a character (%U) that could control the terminal: refused", clip(s), r)
	}
	return nil
}

// clip shortens s for an error message (%q escapes it).
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// encodeMessage is how the header stores a --message: as itself when
// the reader would accept it as text, else escaped for the eye with the
// exact bytes beside it (a message may hold anything a shell can pass:
// ESC, a Latin-1 é).
func encodeMessage(msg string) (text string, exact []byte) {
	if utf8.ValidString(msg) && safeText(msg) == nil {
		return msg, nil
	}
	return privdata.EscapePeer([]byte(msg)), []byte(msg)
}
