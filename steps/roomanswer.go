package steps

import (
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// A workshop room asks every attendee the lesson's question (their own
// screen asks it, as in a one-client run) and collects the picks from
// their hellos. What really happened to each attendee is judged on the
// server's side, from what the server saw of that attendee's QP: the NAK
// it answered their request with gives their completion its status (IB
// spec 9.7.5.2.8; rxe_comp.c turns a NAK into that status), and a message
// that landed with no NAK is a success. A question whose answer the
// server cannot see (an errno on the attendee's own machine) is not
// judged there (-1).

// AttendeeQuestion is the question the lesson asks the attendee (the
// client side) and its choices, in order; nil choices when it asks the
// client nothing.
func (l Lesson) AttendeeQuestion() (text.Text, []text.Text) {
	p := l.prediction(l.clientConfig())
	if p == nil {
		return text.Text{}, nil
	}
	var out []text.Text
	for _, c := range p.Choices {
		out = append(out, c.Text)
	}
	return p.Question, out
}

// AnswerSeen is the index of the attendee's choice that what the server
// saw of them makes true (p: their server Session's Progress at the end
// of their run); -1 when the server's side cannot tell.
func (l Lesson) AnswerSeen(p Progress) int {
	q := l.prediction(l.clientConfig())
	if q == nil {
		return -1
	}
	var err error
	switch {
	case p.RefusalStatus != verbs.WCSuccess:
		err = &CompletionError{What: "the attendee's work request", WC: verbs.WC{Status: p.RefusalStatus}}
	case p.Result == nil:
		return -1 // nothing landed and no NAK: the server did not see the outcome
	}
	seen := &Session{progress: progress{result: p.Result}} // what landed, for the landed choices; nothing else is read
	for i, c := range q.Choices {
		if c.happened(err, seen) {
			return i
		}
	}
	return -1
}

// clientConfig is the attendee's side of the lesson, as a client started
// with --lesson runs it.
func (l Lesson) clientConfig() Config {
	return Config{Role: Client, Tour: l.Tour, Notify: l.Notify, Track: l.Track, Lesson: &l}
}
