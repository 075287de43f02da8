package steps

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
)

// Hello is a peer's hello read as this rdmatour's tours and lessons: the
// wire format (privdata.Hello) with its tour byte as a TourKind.
type Hello struct {
	// Version is the sender's format version (privdata.HelloVersion when
	// sending).
	Version uint8
	Tour    TourKind
	// Lesson is the lesson's name; "" is the plain tour.
	Lesson string
}

// HelloFor is the hello a side running tour and lesson sends.
func HelloFor(tour TourKind, lesson string) Hello {
	return Hello{Version: privdata.HelloVersion, Tour: tour, Lesson: lesson}
}

// Marshal encodes the hello (privdata.Hello.Marshal).
func (h Hello) Marshal() ([]byte, error) {
	return privdata.Hello{Version: h.Version, Tour: uint8(h.Tour), Lesson: h.Lesson}.Marshal()
}

// ParseHello reads a hello from the start of p (privdata.ParseHello) and
// turns away a tour kind this rdmatour does not know, as a
// *privdata.HelloError. found is false when p holds no hello.
func ParseHello(p []byte) (h Hello, found bool, err error) {
	w, found, err := privdata.ParseHello(p)
	if !found || err != nil {
		return Hello{}, found, err
	}
	if _, known := TourOf(TourKind(w.Tour)); !known {
		return Hello{}, true, &privdata.HelloError{Reason: fmt.Sprintf("unknown tour kind %d (this rdmatour knows %s)",
			w.Tour, strings.Join(tourNames(), ", "))}
	}
	return Hello{Version: w.Version, Tour: TourKind(w.Tour), Lesson: w.Lesson}, true, nil
}

// Describe names what the hello's sender runs, for the learner.
func (h Hello) Describe() text.Text {
	tour := ""
	if h.Tour != TourWrite {
		tour = " (" + h.Tour.String() + ")"
	}
	if h.Lesson == "" {
		return text.Text{EN: "the plain tour" + tour, ZH: "普通教程" + tour}
	}
	return text.Text{EN: "lesson " + h.Lesson + tour, ZH: "课程 " + h.Lesson + tour}
}

// Flags names what the hello's sender runs as the command-line flags that
// start it ("--lesson bad-rkey", "--tour write"): identifiers, the same
// in every language.
func (h Hello) Flags() string {
	if h.Lesson == "" {
		return "--tour " + h.Tour.String()
	}
	if h.Tour != TourWrite {
		return "--tour " + h.Tour.String() + " --lesson " + h.Lesson
	}
	return "--lesson " + h.Lesson
}

// PeerInfo is what this side learned about the other side's tour from its
// hello (see privdata/hello.go).
type PeerInfo struct {
	// Known is false until the hello's message arrived (REQ on the
	// server, REP on the client).
	Known bool
	// Sent is false when the peer sent no hello: the seed program, or an
	// rdmatour from before the hello. It runs the plain write tour.
	Sent  bool
	Hello Hello
	// Bad is why a hello with the magic could not be read ("" if fine).
	Bad string
	// Edits are the edits the peer announced in its hello, escaped (bytes
	// from the peer); EditsOmitted those that did not fit (peeredits.go).
	Edits        []string
	EditsOmitted int
	// Name is the name the peer's hello carried (--name), escaped: bytes
	// from the peer. "" for none.
	Name string
	// Vote is the peer's vote, when its hello carried one (a workshop
	// attendee started with --name): its pick and name.
	Vote privdata.HelloVote
	// lesson is Hello.Lesson resolved, once, when the hello arrived (nil
	// for none, or a name this build does not know).
	lesson *Lesson
}

// Lesson is the peer's lesson name ("" for the plain tour or no hello).
func (p PeerInfo) Lesson() string { return p.Hello.Lesson }

// myHello is the hello this side sends.
func (s *Session) myHello() []byte {
	b, err := HelloFor(s.tourKind(), s.cfg.LessonName()).Marshal()
	if err != nil {
		return nil // TestHelloFitsEveryLesson: never for a real lesson
	}
	if s.cfg.Name == "" {
		return privdata.AppendHelloEdits(b, s.announcedEdits(), s.helloRoom())
	}
	edits := s.announcedEdits()
	withEdits := privdata.AppendHelloEdits(b, edits, s.helloRoom()-privdata.VoteSize(s.cfg.Name))
	voted, err := privdata.AppendHelloVote(withEdits, len(withEdits) > len(b), privdata.HelloVote{Pick: s.pick(), Name: privdata.PeerBytes(s.cfg.Name), Follows: s.cfg.FollowsRoom})
	if err != nil {
		return withEdits
	}
	return voted
}

// pick is the learner's answer to the lesson's question, 1-based, as a
// vote carries it (0: no question, or not answered).
func (s *Session) pick() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pred == nil || s.predState.Picked < 0 {
		return 0
	}
	return s.predState.Picked + 1
}

// tourKind is the tour this side runs (--tour; lessons run on write).
func (s *Session) tourKind() TourKind { return s.cfg.Tour }

// learnPeerTour records the peer's hello from p (the REQ private data, or
// what follows remote_info in the REP) and returns a line for the step's
// results plus a note when the two sides do not run the same thing.
func (s *Session) learnPeerTour(p []byte) (KV, text.Text) {
	h, found, err := ParseHello(p)
	pt := PeerInfo{Known: true, Sent: found, Hello: h}
	if err != nil {
		pt.Bad = err.Error()
	}
	if !found || err != nil {
		pt.Hello = HelloFor(TourWrite, "")
	}
	if pt.Hello.Lesson != "" {
		pt.lesson, _ = ParseLesson(pt.Hello.Lesson) // unknown: the mismatch note says so
	}
	learnPeerEdits(p, &pt)
	learnPeerVote(p, &pt)
	s.set(func() { s.peerTour = pt })
	kv := result(resPeerRuns, pt.Hello.Flags())
	note := s.mismatchNote(pt)
	switch {
	case pt.Bad != "":
		note = joinNotes(text.Text{EN: "The peer's hello could not be read (" + pt.Bad + "): taken as the plain tour.",
			ZH: "对端的 hello 读不懂（" + pt.Bad + "）：按普通教程处理。"}, note)
	case !found && note.EN == "":
		note = text.Text{EN: "The peer sent no hello: the seed program or an older rdmatour, running the plain tour.",
			ZH: "对端没有发 hello：是 seed 程序或旧版 rdmatour，跑的是普通教程。"}
	}
	if s.mismatchNote(pt).EN != "" && s.cfg.Lesson == nil && pt.lesson != nil {
		s.adoptPeerExpectations(pt.lesson)
	}
	return kv, joinNotes(note, s.peerEditsArrived(pt))
}

// PeerInfo returns what this side knows of the peer's tour.
func (s *Session) PeerInfo() PeerInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peerTour
}

// mismatchNote explains, for this side's learner, that the two sides run
// different lessons (or tours), and what that will do; empty when they
// agree.
func (s *Session) mismatchNote(pt PeerInfo) text.Text {
	mine, theirs := HelloFor(s.tourKind(), s.cfg.LessonName()), pt.Hello
	if mine.Lesson == theirs.Lesson && mine.Tour == theirs.Tour {
		return text.Text{}
	}
	peer := s.cfg.Role.Peer().String()
	if !pt.Sent && mine.Lesson != "" {
		return text.Text{
			EN: fmt.Sprintf("The %s sent no hello (the seed program or an older rdmatour): it runs the plain tour, so only this side's half of lesson %s happens.", peer, mine.Lesson),
			ZH: fmt.Sprintf("%s 没有发来 hello（seed 程序或旧版 rdmatour）：它跑的是普通教程，所以课程 %s 只有本端这一半会发生。", peer, mine.Lesson)}
	}
	me, them := mine.Describe(), theirs.Describe()
	head := text.Text{EN: fmt.Sprintf("Mismatch: the %s runs %s, this side runs %s.", peer, them.EN, me.EN),
		ZH: fmt.Sprintf("两端不一致：%s 跑的是%s，本端跑的是%s。", peer, them.ZH, me.ZH)}
	what := s.mismatchEffect(mine, theirs, pt.lesson)
	fix := mine.Lesson
	if fix == "" {
		fix = theirs.Lesson
	}
	tail := text.Text{EN: fmt.Sprintf(" To follow one lesson on both screens, start both sides with --lesson %s.", fix),
		ZH: fmt.Sprintf("想在两边看同一课，两端都用 --lesson %s 启动。", fix)}
	if fix == "" {
		tail = text.Text{EN: " Start both sides with the same tour.", ZH: "两端请用同一种教程启动。"}
	}
	return text.Text{EN: head.EN + " " + what.EN + tail.EN, ZH: head.ZH + what.ZH + tail.ZH}
}

// mismatchEffect says what a mismatch will do to this side's steps.
// theirsLesson is the peer's lesson, resolved from its hello.
func (s *Session) mismatchEffect(mine, theirs Hello, theirsLesson *Lesson) text.Text {
	peer := s.cfg.Role.Peer().String()
	byOf := func(l *Lesson) Role {
		if l != nil {
			return l.by
		}
		return noMistake
	}
	switch {
	case mine.Tour != theirs.Tour:
		return tourMismatchEffect(s.cfg.Role, mine.Tour, theirs.Tour)
	case mine.Lesson != "" && theirs.Lesson != "":
		return text.Text{EN: "Each side makes its own lesson's mistake; the errors on each screen will not be the ones its lesson page describes.",
			ZH: "两端各犯各的错；每一端看到的错误都不会是它的课程讲解里写的那个。"}
	case mine.Lesson == "" && byOf(theirsLesson) == s.cfg.Role.Peer() && len(s.peerExpectations(theirsLesson)) > 0:
		return text.Text{EN: fmt.Sprintf("The %s's mistake will reach this side too; the steps it breaks here say so.", peer),
			ZH: fmt.Sprintf("%s 犯的错也会波及本端；被它影响的步骤会注明。", peer)}
	case mine.Lesson == "" && byOf(theirsLesson) == s.cfg.Role.Peer():
		return text.Text{EN: fmt.Sprintf("The %s's mistake stays on its side: this side's steps run as usual.", peer),
			ZH: fmt.Sprintf("%s 犯的错只影响它自己那一端：本端的步骤照常进行。", peer)}
	case mine.Lesson == "":
		return text.Text{EN: fmt.Sprintf("That lesson's mistake is this side's to make, and this side does not make it: the %s's expected error will not happen.", peer),
			ZH: fmt.Sprintf("那一课的错误本该由本端来犯，而本端没有犯：%s 预期的错误不会出现。", peer)}
	case byOf(s.cfg.Lesson) == s.cfg.Role:
		return text.Text{EN: fmt.Sprintf("This side makes the lesson's mistake; the %s sees its effect without being told why.", peer),
			ZH: fmt.Sprintf("本端会犯这一课的错；%s 会看到后果，但不知道原因。", peer)}
	}
	return text.Text{EN: fmt.Sprintf("The lesson's mistake is the %s's to make, and it does not make it: the error this side expects will not happen.", peer),
		ZH: fmt.Sprintf("这一课的错误该由 %s 来犯，而它没有犯：本端预期的错误不会出现。", peer)}
}

// adoptPeerExpectations: this side runs the plain tour, the peer a lesson
// whose mistake will break this side's steps too. Those steps now expect
// the lesson's error (and say whose it is), instead of failing the tour
// with a bare error.
func (s *Session) adoptPeerExpectations(l *Lesson) {
	if l.by != s.cfg.Role.Peer() {
		return // the mistake is not the peer's: nothing reaches this side
	}
	lesson := l.Name
	want := s.peerExpectations(l)
	peer := s.cfg.Role.Peer().String()
	s.set(func() {
		for i := s.next; i < len(s.tour); i++ {
			w, ok := want[s.tour[i].ID]
			if !ok || s.tour[i].Expect != nil {
				continue
			}
			e := *w
			e.What = text.Text{EN: fmt.Sprintf("%s (the %s's lesson %s)", e.What.EN, peer, lesson),
				ZH: fmt.Sprintf("%s（%s 的课程 %s）", e.What.ZH, peer, lesson)}
			s.tour[i].Expect = &e
		}
	})
}

// explainMismatch adds to a failure, or to an expected error that did
// not come, that the peer runs something else; expected says the error is
// one this side adopted from the peer's lesson.
func (s *Session) explainMismatch(what text.Text, expected bool) text.Text {
	pt := s.PeerInfo()
	if !pt.Known || s.mismatchNote(pt).EN == "" {
		return what
	}
	peer := s.cfg.Role.Peer().String()
	if expected {
		return text.Text{EN: fmt.Sprintf("%s — from the %s's lesson %s (this side runs the plain tour)", what.EN, peer, pt.Lesson()),
			ZH: fmt.Sprintf("%s —— 来自 %s 的课程 %s（本端跑的是普通教程）", what.ZH, peer, pt.Lesson())}
	}
	note := s.mismatchNote(pt)
	return text.Text{EN: what.EN + " — " + strings.TrimSuffix(note.EN, "."), ZH: what.ZH + " —— " + strings.TrimSuffix(note.ZH, "。")}
}

// withMismatch wraps a step's error with the mismatch explanation, when
// the sides run different things; the wrapped error still matches what
// it matched before (Problem unwraps).
func (s *Session) withMismatch(err error, expected bool) error {
	if err == nil || (expected && s.cfg.Lesson != nil) {
		return err // no error, or this side's own lesson doing what it says
	}
	pt := s.PeerInfo()
	if !pt.Known || s.mismatchNote(pt).EN == "" {
		return err
	}
	var p *Problem
	if !errors.As(err, &p) {
		p = classify(err)
	}
	return &Problem{What: s.explainMismatch(p.What, expected), Fix: p.Fix, Err: p.Err, quiet: p.quiet}
}

// helloSentKV is the results row for the hello this side sent.
func (s *Session) helloSentKV() KV {
	return result(resHelloSent, fmt.Sprintf("% x (%s)", s.myHello(), HelloFor(s.tourKind(), s.cfg.LessonName()).Flags()))
}

// helloNote says what the hello bytes are, next to C that does not send
// them: the seed's programs (and export-c's) send no hello.
var helloNote = text.Text{EN: "rdmatour also sends a short hello in the private data (after remote_info on the accept) so both sides know which tour and lesson run; the seed program sends none and ignores it.",
	ZH: "rdmatour 还会在 private data 里带一段简短的 hello（accept 时放在 remote_info 之后），让两端知道对方跑的是哪个教程、哪一课；seed 程序不发送，也会忽略它。"}

// joinNotes puts two notes one after the other; either may be empty.
func joinNotes(a, b text.Text) text.Text {
	if b.EN == "" {
		return a
	}
	if a.EN == "" {
		return b
	}
	return text.Text{EN: a.EN + " " + b.EN, ZH: a.ZH + b.ZH}
}

// peerExpectations are the errors lesson makes this side's steps expect,
// by step ID (none when its mistake does not reach this side).
func (s *Session) peerExpectations(l *Lesson) map[StepID]*Expect {
	if l == nil {
		return nil
	}
	cfg := s.cfg
	cfg.Lesson, cfg.Notify, cfg.Tour, cfg.Track = l, l.Notify, l.Tour, l.Track
	tour, err := l.apply(cfg, baseTour(cfg))
	if err != nil {
		return nil // TestEveryLessonOnEveryTour: never for a lesson's own tour
	}
	out := map[StepID]*Expect{}
	for _, st := range tour {
		if st.Expect != nil {
			out[st.ID] = st.Expect
		}
	}
	return out
}
