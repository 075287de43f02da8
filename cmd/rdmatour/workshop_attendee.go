package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/workshop"
)

// The attendee's side of a workshop room: the client's --name and
// --predict, and following the room's plan. A client started with no
// --tour and no --lesson that a room turns away because it runs
// something else starts again with what the room runs (the plan came in
// the REJ: steps.RoomPlanError); one that asked for something else is
// told what the room runs and stops.

// maxFollows bounds how often a client starts again with a room's plan:
// the instructor may press n just as it connects, not forever.
const maxFollows = 3

// attendeeFlags are the client's flags for a workshop room.
func attendeeFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.name, "name", "", fmt.Sprintf("what a workshop room calls you on its roster and results (at most %d bytes are sent; default: this host's name); your second vote lands next to your first under it", privdata.MaxVoteName))
	fs.IntVar(&o.predict, "predict", 0, "answer the lesson's question with choice `N` (1, 2, ...) without being asked: for scripts and tests; a workshop room gets the answer with your connect request")
}

// attendeeName is the name the client's hello carries: --name, or this
// host's name; none on the server.
func (o options) attendeeName(role steps.Role) string {
	if role != steps.Client {
		return ""
	}
	if o.name != "" {
		return o.name
	}
	host, err := os.Hostname()
	if err != nil {
		return ""
	}
	if len(host) > privdata.MaxVoteName { // --name's limit; a host's name is only a default
		host = host[:privdata.MaxVoteName]
	}
	return host
}

// checkPredict applies --predict to the client's session: out of range
// is a usage error; a tour with no question is one too, unless the
// client follows a room (its plan may bring the question).
func checkPredict(o options, s *steps.Session) error {
	if o.predict == 0 {
		return nil
	}
	err := s.Predict(o.predict - 1)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, steps.ErrNoPrediction) && !o.choseTour:
		return nil
	case errors.Is(err, steps.ErrNoPrediction):
		return usagef("--predict %d: %s asks the client no question", o.predict, steps.HelloFor(o.tour, o.lesson.String()).Flags())
	}
	return usagef("--predict %d: %v", o.predict, err)
}

// roomPlanOf is the plan a room turned this client away with, when the
// client follows rooms (it chose no tour or lesson) and has not followed
// too often.
func roomPlanOf(o options, err error, follows int) (*steps.RoomPlanError, bool) {
	var plan *steps.RoomPlanError
	if o.choseTour || follows >= maxFollows || !errors.As(err, &plan) {
		return nil, false
	}
	return plan, true
}

// withRoomPlan is err, or, when the TUI ended (the learner left the
// screen that showed the room's REJ) for a client that follows rooms,
// the plan the room turned it away with: runClient then starts again
// with it, as plain mode's failed step does at once.
func withRoomPlan(o options, sessions []steps.Runner, err error) error {
	var plan *steps.RoomPlanError
	if o.choseTour || len(sessions) != 1 || errors.As(err, &plan) {
		return err
	}
	if s, live := sessions[0].(*steps.Session); live && s.RoomPlan() != nil {
		return s.RoomPlan()
	}
	return err
}

// followRoom is o running the room's plan.
func (o options) followRoom(plan *steps.RoomPlanError) options {
	if l := plan.Lesson(); l != nil {
		return o.withLesson(l)
	}
	o.lesson, o.tour = nil, plan.Plan.Tour
	return o
}

// followLine says on the terminal that the client starts again with the
// room's plan.
func followLine(plan *steps.RoomPlanError) text.Text {
	f := plan.Plan.Flags()
	return text.Text{EN: "rdmatour client: the workshop runs " + f + ": starting again with it",
		ZH: "rdmatour client：workshop 跑的是 " + f + "：按它重新开始"}
}

// planWords name what a room runs, for its header and announcements.
func planWords(p workshop.Plan) string {
	if p.Lesson == nil {
		return "--tour " + p.Tour.String()
	}
	return "--tour " + p.Tour.String() + " --lesson " + p.Lesson.Name
}
