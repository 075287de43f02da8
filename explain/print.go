package explain

import (
	"fmt"
	"io"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// Print writes every reading of code in lang: for each, its field and
// value, the C name and printed words, what it is, where it comes from,
// and its usual causes with the lesson that reproduces each.
func Print(w io.Writer, code string, ms []Meaning, lang text.Lang) error {
	p := &printer{w: w}
	if len(ms) > 1 {
		p.text(lang, "", text.Text{
			EN: fmt.Sprintf("%s has %d readings; which one it is depends on where you saw it:", code, len(ms)),
			ZH: fmt.Sprintf("%s 有 %d 种读法；是哪一种取决于你在哪里看到它：", code, len(ms)),
		})
		p.line("")
	}
	for i, m := range ms {
		if i > 0 {
			p.line("")
		}
		p.meaning(m, lang)
	}
	return p.err
}

// printer writes lines and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(s string) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, s)
	}
}

// text writes t once per language asked for, after indent.
func (p *printer) text(lang text.Lang, indent string, t text.Text) {
	for _, l := range lang.Each() {
		p.line(indent + t.In(l))
	}
}

func (p *printer) meaning(m Meaning, lang text.Lang) {
	head := fmt.Sprintf("%s %s = %s", m.Kind.Label().Joined(lang), number(m), m.Name)
	if m.Printed != "" && m.Printed != m.Name {
		head += fmt.Sprintf(" (%q)", m.Printed)
	}
	p.line(head)
	p.text(lang, "  ", label(text.Text{EN: "What it is", ZH: "是什么"}, m.What, lang))
	p.text(lang, "  ", label(text.Text{EN: "Where it comes from", ZH: "来自哪里"}, m.Kind.Field(), lang))
	if len(m.Causes) == 0 {
		return
	}
	p.text(lang, "  ", text.Text{EN: "Usual causes:", ZH: "常见原因："})
	for _, c := range m.Causes {
		p.text(lang, "    - ", c.Why)
		if c.Lesson != "" {
			p.text(lang, "      ", lessonLine(c.Lesson))
		}
	}
}

// number prints the value as its field writes it: syndromes in hex.
func number(m Meaning) string {
	if m.Kind == KindSyndrome {
		return fmt.Sprintf("0x%02X", m.Number)
	}
	return fmt.Sprint(m.Number)
}

func label(l, t text.Text, lang text.Lang) text.Text {
	return text.Text{EN: l.EN + ": " + t.EN, ZH: l.In(text.ZH) + "：" + t.In(text.ZH)}
}

// lessonLine points to the lesson that reproduces a cause, by its title
// in the registry.
func lessonLine(name string) text.Text {
	l, err := steps.LessonByName(name)
	if err != nil {
		return text.Same("(lesson " + name + ")")
	}
	return text.Text{
		EN: fmt.Sprintf("see it happen: rdmatour demo --lesson %s (%s)", name, l.Title.EN),
		ZH: fmt.Sprintf("亲眼看看：rdmatour demo --lesson %s（%s）", name, l.Title.In(text.ZH)),
	}
}
