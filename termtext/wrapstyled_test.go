package termtext

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapStyled(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		w        int
		hang     string
		want     []string
	}{
		{"fits", "abc", 5, "  ", []string{"abc"}},
		{"breaks after a space", "     RETH va=0x7fad700f9000 rkey=0x13e len=43", 30, "     ",
			[]string{"     RETH va=0x7fad700f9000", "     rkey=0x13e len=43"}},
		{"a value longer than the line breaks between cells", "0123456789abcdef", 6, "",
			[]string{"012345", "6789ab", "cdef"}},
		{"no line starts with the space it broke at", "aa bb", 2, "", []string{"aa", "bb"}},
	} {
		got := WrapStyled(tt.in, tt.w, tt.hang)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if strings.ReplaceAll(strings.Join(got, ""), " ", "") != strings.ReplaceAll(tt.in, " ", "") {
			t.Errorf("%s: lost text: %q", tt.name, got)
		}
	}
}

// TestWrapStyledKeepsStyles: a style open at the break is closed at the
// end of the line and opened again on the next, so no colour bleeds into
// the frame and none is lost.
func TestWrapStyledKeepsStyles(t *testing.T) {
	in := "ab \x1b[34mcd ef\x1b[m gh"
	got := WrapStyled(in, 5, "")
	want := []string{"ab \x1b[34mcd\x1b[m", "\x1b[34mef\x1b[m gh"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, l := range got {
		if Width(l) > 5 || ansi.StringWidth(l) > 5 {
			t.Errorf("%q wider than 5", l)
		}
	}
	if plain := ansi.Strip(strings.Join(got, " ")); plain != "ab cd ef gh" {
		t.Errorf("text %q", plain)
	}
}
