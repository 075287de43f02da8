package workshop

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The room's plan: the tour every attendee runs (fixed when the room
// opens, Config.Tour) and the lesson (Config.Lesson, then whatever the
// instructor picks between runs: SetLesson, NextLesson). Every attendee's
// server side runs the plan's lesson, so a server-side lesson goes wrong
// for everyone as in a one-client run; an attendee whose hello names
// another tour, or another lesson when the room has one, is turned away
// with the plan in the REJ (privdata.RejectWithPlan): `rdmatour client
// HOST` with no --tour or --lesson starts again with it, one that asked
// for something else is told what the room runs. The seed's client sends
// no hello: it runs the write tour's client as it always does, and meets
// the server side of the room's lesson.

// Plan is what the room runs now.
type Plan struct {
	Tour   steps.TourKind
	Lesson *steps.Lesson // nil: the plain tour (attendees may bring their own lesson)
}

// Hello is the plan as a hello says it.
func (p Plan) Hello() steps.Hello { return steps.HelloFor(p.Tour, p.Lesson.String()) }

// Flags names the plan as the command-line flags that start it.
func (p Plan) Flags() string { return p.Hello().Flags() }

// Plan is what the room runs now.
func (r *Room) Plan() Plan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Plan{Tour: r.cfg.Tour, Lesson: r.votes.lesson}
}

// SetLesson makes l (nil: the plain tour) the room's lesson for every
// attendee who connects from now on; those in the room finish what they
// started. The lesson must be one of the room's tour: the error says
// which lessons are.
func (r *Room) SetLesson(l *steps.Lesson) error {
	if err := checkRoomLesson(l, r.cfg.Tour); err != nil {
		return err
	}
	r.mu.Lock()
	r.votes.setLesson(l)
	r.mu.Unlock()
	return nil
}

// NextLesson moves the room to the lesson after the current one among
// its tour's lessons (the plain tour after the last, the first after the
// plain tour), and says which it is now.
func (r *Room) NextLesson() Plan {
	names := LessonsOf(r.cfg.Tour)
	cur := r.Plan().Lesson.String()
	next := ""
	for i, n := range names {
		if n == cur && i+1 < len(names) {
			next = names[i+1]
		}
	}
	if cur == "" && len(names) > 0 {
		next = names[0]
	}
	var l *steps.Lesson
	if next != "" {
		l, _ = steps.ParseLesson(next) // a name from the registry
	}
	r.SetLesson(l) // of the room's tour: LessonsOf
	return r.Plan()
}

// LessonsOf are the names of the lessons that run on tour, in teaching
// order.
func LessonsOf(tour steps.TourKind) []string {
	var out []string
	for _, l := range steps.Lessons() {
		if l.Tour == tour && !l.BeforeConnection() && l.Track == steps.TrackCM {
			out = append(out, l.Name)
		}
	}
	return out
}

// planMismatch is why the room turns the request ev away because its
// hello names another tour, or another lesson when the room has one (""
// when it fits the plan). No hello, or one that cannot be read, counts as
// the write tour's client (the seed program's). The caller holds r.mu.
func (r *Room) planMismatch(ev verbs.CMEvent) string {
	h, found, err := steps.ParseHello(ev.PrivateData)
	if !found || err != nil {
		h = steps.HelloFor(steps.TourWrite, "")
	}
	plan := Plan{Tour: r.cfg.Tour, Lesson: r.votes.lesson}
	if h.Tour == plan.Tour && (plan.Lesson == nil || h.Lesson == plan.Lesson.Name || !found) {
		return ""
	}
	if plan.Lesson == nil {
		return fmt.Sprintf("%s%s, you ran %s: start again with --tour %s", steps.TourMismatchReason, plan.Tour, h.Flags(), plan.Tour)
	}
	// Short enough that the plan fits behind it in the REJ's 148 bytes,
	// for every lesson (TestPlanFitsTheReject).
	return fmt.Sprintf("%s%s --lesson %s; you ran %s", steps.TourMismatchReason, plan.Tour, plan.Lesson.Name, h.Flags())
}

// reject turns ev away with reason, and with the room's plan after it
// when withPlan says.
func (r *Room) reject(ev verbs.CMEvent, reason string, withPlan bool) error {
	if !withPlan {
		return steps.RejectRequest(ev, reason)
	}
	b, err := r.Plan().Hello().Marshal()
	if err != nil {
		return steps.RejectRequest(ev, reason)
	}
	return steps.RejectPrivate(ev, privdata.RejectWithPlan(reason, b, verbs.MaxRejectPrivateData))
}

// follows says ev's hello says its client follows a room's plan.
func follows(ev verbs.CMEvent) bool {
	v, found, err := privdata.ParseHelloVote(ev.PrivateData)
	return found && err == nil && v.Follows
}

// countsAsTurned is 1 for a request the room turns away, 0 for one it
// only sent its plan to (withPlan, and the client follows rooms): that
// client is back in a moment, on the plan, and the header's count of
// those turned away stays the instructor's to act on.
func countsAsTurned(ev verbs.CMEvent, withPlan bool) int {
	if withPlan && follows(ev) {
		return 0
	}
	return 1
}

// turnedWords start the event of a request the room turned away.
func turnedWords(ev verbs.CMEvent, withPlan bool, reason string) text.Text {
	if withPlan && follows(ev) {
		return text.Text{EN: "sent the room's plan (their client starts again with it): " + reason,
			ZH: "已把教室的安排发给对方（他们的 client 会按它重新开始）：" + reason}
	}
	return text.Text{EN: "turned away: " + reason, ZH: "已拒绝：" + reason}
}

// checkRoomLesson refuses a plan the room cannot run: a lesson of another
// tour, or one whose mistake stops the client before it connects.
func checkRoomLesson(l *steps.Lesson, tour steps.TourKind) error {
	switch {
	case l == nil:
		return nil
	case l.BeforeConnection():
		return &steps.ConfigError{Reason: text.Text{EN: fmt.Sprintf("--lesson %s fails on the attendee's own machine before it connects, so no attendee would reach the room: run it without --workshop; the room's lessons are %v", l.Name, LessonsOf(tour)),
			ZH: fmt.Sprintf("--lesson %s 在学员自己的机器上、连接之前就失败了，没有学员能进教室：不加 --workshop 运行它；教室能用的课程是 %v", l.Name, LessonsOf(tour))}}
	case l.Track != steps.TrackCM:
		return &steps.ConfigError{Reason: text.Text{EN: fmt.Sprintf("--lesson %s runs on the manual QP track, and a room's server runs the rdma_cm track: run it without --workshop; the room's lessons are %v", l.Name, LessonsOf(tour)),
			ZH: fmt.Sprintf("--lesson %s 在 manual QP 路线上运行，而教室的 server 走 rdma_cm 路线：不加 --workshop 运行它；教室能用的课程是 %v", l.Name, LessonsOf(tour))}}
	case l.Tour != tour:
		return &steps.ConfigError{Reason: text.Same(fmt.Sprintf("--lesson %s runs on the %s tour, and the room runs --tour %s: give --tour %s, or one of %v", l.Name, l.Tour, tour, l.Tour, LessonsOf(tour)))}
	}
	return nil
}
