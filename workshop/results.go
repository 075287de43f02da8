package workshop

import (
	"encoding/csv"
	"encoding/json"
	"github.com/rdmatour/rdmatour/text"
	"io"
	"strconv"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// The results an instructor takes home: one record per attendee run, as
// CSV (a spreadsheet) and as JSON lines (a script). Both come from the
// same Result, so the two files cannot disagree.

// Result is one attendee's run, as the results files hold it.
type Result struct {
	N       int    `json:"n"`
	Address string `json:"address"`
	Backend string `json:"backend"`
	Tour    string `json:"tour"`
	// Lesson is what the attendee's hello named ("" for the plain tour).
	Lesson string `json:"lesson"`
	// Outcome is the phase the run ended in (or is in; "expected error"
	// for a lesson run that met the lesson's error) and Observed what
	// the server saw last, in words.
	Outcome  string `json:"outcome"`
	Observed string `json:"observed"`
	// Message is the attendee's message, escaped (it is their bytes).
	Message   string `json:"message"`
	StepsRan  int    `json:"steps_ran"`
	Steps     int    `json:"steps"`
	Arrived   string `json:"arrived"`
	Left      string `json:"left"`
	Seconds   int64  `json:"seconds"`
	Error     string `json:"error"`
	Stuck     bool   `json:"stuck"`
	QPN       uint32 `json:"qpn"`
	LastEvent string `json:"last_event"`
	// Name is what the attendee's hello called them (escaped); First and
	// Second their two predictions on the room's lesson, and Happened
	// what really happened as the server saw their QP: the choices'
	// words ("" for no vote, or what the server's side could not judge).
	Name     string `json:"name"`
	First    string `json:"first_prediction"`
	Second   string `json:"second_prediction"`
	Happened string `json:"happened"`
}

// resultHead is the CSV header, in Result's field order.
var resultHead = []string{"n", "address", "backend", "tour", "lesson", "outcome", "observed", "message",
	"steps_ran", "steps", "arrived", "left", "seconds", "error", "stuck", "qpn", "last_event",
	"name", "first_prediction", "second_prediction", "happened"}

// Results are the roster's rows as results of a room running tour, at now
// (an attendee still in the room has no Left, and Seconds so far).
func Results(rows []Row, tour steps.TourKind, now time.Time) []Result {
	out := make([]Result, len(rows))
	for i, r := range rows {
		end := r.Left
		if end.IsZero() {
			end = now
		}
		res := Result{N: r.N, Address: r.Addr.String(), Backend: r.Backend, Tour: tour.String(), Lesson: r.Lesson,
			Outcome: r.Phase.String(), Observed: r.What(text.EN), StepsRan: r.Ran, Steps: r.Steps,
			Arrived: stamp(r.Arrived), Left: stamp(r.Left), Error: r.Err, Stuck: r.Stuck, QPN: r.QPN, LastEvent: stamp(r.Last), Name: r.Name}
		if r.Phase == PhaseFinished && r.Expected.EN != "" {
			res.Outcome = "expected error"
		}
		if r.Landed {
			res.Message = r.Message.String()
		}
		var voter string
		voter, res.First, res.Second, res.Happened = voteWords(r.Votes)
		if res.Name == "" { // the hello's name; a vote's is the same one
			res.Name = voter
		}
		if !r.Arrived.IsZero() {
			res.Seconds = int64(end.Sub(r.Arrived) / time.Second)
		}
		out[i] = res
	}
	return out
}

// voteWords are a run's votes as the results say them: the name, the
// first and second picks and what happened, in the choices' words.
func voteWords(v Votes) (name, first, second, happened string) {
	l, err := steps.LessonByName(v.Lesson)
	if v.Lesson == "" || err != nil {
		return v.Name, "", "", ""
	}
	_, choices := l.AttendeeQuestion()
	word := func(i int) string {
		if i < 0 || i >= len(choices) {
			return ""
		}
		return choices[i].EN
	}
	return v.Name, word(v.First - 1), word(v.Second - 1), word(v.Seen)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// WriteCSV writes the results as CSV with a header line.
func WriteCSV(w io.Writer, results []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(resultHead); err != nil {
		return err
	}
	for _, r := range results {
		rec := []string{strconv.Itoa(r.N), r.Address, r.Backend, r.Tour, r.Lesson, r.Outcome, r.Observed, r.Message,
			strconv.Itoa(r.StepsRan), strconv.Itoa(r.Steps), r.Arrived, r.Left, strconv.FormatInt(r.Seconds, 10),
			r.Error, strconv.FormatBool(r.Stuck), strconv.FormatUint(uint64(r.QPN), 10), r.LastEvent,
			r.Name, r.First, r.Second, r.Happened}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSONLines writes the results one JSON object a line.
func WriteJSONLines(w io.Writer, results []Result) error {
	enc := json.NewEncoder(w)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}
