package workshop

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// Predictions to the room (peer instruction: everyone predicts, the
// spread stays hidden, discussion, revote, reveal). Each attendee's own
// screen asks the lesson's question before the tour runs, as in a
// one-client run, and their hello carries the pick and their name
// (privdata/hellovote.go). The room counts the answers without showing
// them until the instructor reveals (Reveal); a revote (Revote) opens the
// second round: an attendee's next run asks again, and that pick is their
// second vote, kept by their name next to the first. What really happened
// to each attendee is judged from their own QP as the server saw it
// (steps.Lesson.AnswerSeen).

// voteKey is one attendee's votes on one lesson's question.
type voteKey struct{ lesson, name string }

// roomVotes are the room's lesson and the votes on its question. Guarded
// by the Room's mu.
type roomVotes struct {
	lesson   *steps.Lesson
	round    int // 1, or 2 once a revote opened
	revealed bool
	// picks are each name's first and second votes (1-based; 0: none).
	picks map[voteKey]*[2]int
}

func newRoomVotes(l *steps.Lesson) roomVotes {
	return roomVotes{lesson: l, round: 1, picks: map[voteKey]*[2]int{}}
}

// setLesson starts the question of lesson l: round one, hidden. Votes on
// earlier lessons stay (the results keep them).
func (v *roomVotes) setLesson(l *steps.Lesson) {
	v.lesson, v.round, v.revealed = l, 1, false
}

// record is an attendee's pick arriving in round: their first or second
// vote on lesson (a later pick in the same round replaces the earlier).
func (v *roomVotes) record(lesson, name string, pick, round int) {
	k := voteKey{lesson, name}
	if v.picks[k] == nil {
		v.picks[k] = &[2]int{}
	}
	v.picks[k][min(round, 2)-1] = pick
}

// of is name's first and second votes on lesson.
func (v *roomVotes) of(lesson, name string) (first, second int) {
	if p := v.picks[voteKey{lesson, name}]; p != nil {
		return p[0], p[1]
	}
	return 0, 0
}

// Votes is an attendee run's part of the question: the name its hello
// gave, its pick, the name's first and second votes, and which choice
// really happened as the server saw it.
type Votes struct {
	Name string // the attendee's own bytes, escaped; "" when their hello had no vote
	// Lesson is the room's lesson when the attendee arrived ("" for none).
	Lesson string
	// Pick is the answer this run's hello carried, First and Second the
	// name's two votes (1-based; 0: none).
	Pick, First, Second int
	// Seen is the choice (0-based) that what the server saw of this
	// attendee's QP makes true; -1 while running or when it cannot tell.
	Seen int
}

// takeVote records the pick the attendee's hello carried (p: its
// Session's Progress after the connect request), under its name (an
// attendee with no name: its number, so its pick counts once), and tells
// OnEvent how many have answered, not what.
func (r *Room) takeVote(a *Attendee, p steps.Progress) {
	if a.vote.lesson == nil || p.PeerPick == 0 {
		return
	}
	name := p.PeerName
	if name == "" {
		name = fmt.Sprintf("#%d", a.N)
	}
	r.mu.Lock()
	r.votes.record(a.vote.lesson.Name, name, p.PeerPick, a.vote.round)
	answered := 0
	for k, v := range r.votes.picks {
		if k.lesson == a.vote.lesson.Name && v[min(a.vote.round, 2)-1] != 0 {
			answered++
		}
	}
	r.mu.Unlock()
	r.update(a, func() { a.vote.name, a.vote.pick = name, p.PeerPick },
		text.Text{EN: fmt.Sprintf("answered the question (round %d: %d answered)", a.vote.round, answered),
			ZH: fmt.Sprintf("回答了问题（第 %d 轮：已有 %d 人回答）", a.vote.round, answered)})
}

// judge records which choice what the server saw of the attendee makes
// true, as its run ends.
func (a *Attendee) judge(p steps.Progress) {
	if a.vote.lesson == nil {
		return
	}
	seen := a.vote.lesson.AnswerSeen(p)
	a.mu.Lock()
	a.vote.seen = seen
	a.mu.Unlock()
}

// Reveal shows the room's answers next to what happened (the roster's r).
func (r *Room) Reveal() {
	r.mu.Lock()
	r.votes.revealed = true
	r.mu.Unlock()
}

// Revote opens the second round of the current question, hidden again
// (the roster's v): each attendee's next run asks again.
func (r *Room) Revote() {
	r.mu.Lock()
	r.votes.round, r.votes.revealed = 2, false
	r.mu.Unlock()
}

// Tally is the room's current question as the roster shows it.
type Tally struct {
	Lesson   string
	Question text.Text
	Choices  []text.Text
	Round    int
	Revealed bool
	// First and Second count the votes per choice; Seen what happened
	// per choice, over the runs of this lesson that ended; Unseen the
	// ended runs the server's side could not judge.
	First, Second, Seen []int
	Unseen              int
	// Answered1 and Answered2 are how many names voted in each round.
	Answered1, Answered2 int
}

// Tally counts the votes on the current lesson's question (none asked:
// an empty Tally, Choices nil).
func (r *Room) Tally() Tally {
	rows := r.Roster()
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.votes
	t := Tally{Round: v.round, Revealed: v.revealed}
	if v.lesson == nil {
		return t
	}
	t.Lesson = v.lesson.Name
	t.Question, t.Choices = v.lesson.AttendeeQuestion()
	n := len(t.Choices)
	t.First, t.Second, t.Seen = make([]int, n), make([]int, n), make([]int, n)
	for k, p := range v.picks {
		if k.lesson != t.Lesson {
			continue
		}
		count(t.First, p[0], &t.Answered1)
		count(t.Second, p[1], &t.Answered2)
	}
	for _, row := range rows {
		switch {
		case row.Votes.Lesson != t.Lesson || row.Phase.InRoom() || row.Phase == PhaseTurnedAway:
		case row.Votes.Seen >= 0 && row.Votes.Seen < n:
			t.Seen[row.Votes.Seen]++
		default:
			t.Unseen++
		}
	}
	return t
}

// count adds a 1-based pick to per, and to answered.
func count(per []int, pick int, answered *int) {
	if pick >= 1 && pick <= len(per) {
		per[pick-1]++
		*answered++
	}
}

// Lines are the tally as lines: before the reveal only how many
// answered; after, a bar per choice for each round and what happened.
func (t Tally) Lines(lang text.Lang) []string {
	if t.Choices == nil {
		return nil
	}
	q := t.Question.In(lang)
	head := text.Text{EN: fmt.Sprintf("question (lesson %s, round %d): %s", t.Lesson, t.Round, q),
		ZH: fmt.Sprintf("问题（课程 %s，第 %d 轮）：%s", t.Lesson, t.Round, q)}.In(lang)
	answered := text.Text{EN: fmt.Sprintf("answered: %d first votes, %d second votes; r reveals", t.Answered1, t.Answered2),
		ZH: fmt.Sprintf("已作答：第一轮 %d 票，第二轮 %d 票；按 r 揭晓", t.Answered1, t.Answered2)}.In(lang)
	if !t.Revealed {
		return []string{head, answered}
	}
	out := []string{head, text.Text{EN: "   first       second      happened (the server's view of each QP)",
		ZH: "   第一轮      第二轮      实际发生（server 看到的每个 QP）"}.In(lang)}
	for i, c := range t.Choices {
		out = append(out, fmt.Sprintf("%d  %s  %s  %s  %s", i+1, bar(t.First[i]), bar(t.Second[i]), bar(t.Seen[i]), c.In(lang)))
	}
	if t.Unseen > 0 {
		out = append(out, text.Text{EN: fmt.Sprintf("   not judged: %d runs ended with no NAK on this side's wire and nothing landed (a real device this side cannot capture on)", t.Unseen),
			ZH: fmt.Sprintf("   未判断：%d 次运行结束时本端线路上没有 NAK，也没有数据到达（本端无法抓包的真实设备）", t.Unseen)}.In(lang))
	}
	return out
}

// barCells is how wide a tally's bar column is: up to 6 cells of bar,
// a space and the count.
const barCells = 10

// bar is n as a short bar and the number, "███ 3", padded to barCells
// cells (the bar's cells are one wide each, one rune each).
func bar(n int) string {
	s := fmt.Sprint(n)
	if n > 0 {
		s = strings.Repeat("█", min(n, 6)) + " " + s
	}
	return s + strings.Repeat(" ", max(0, barCells-len([]rune(s))))
}

// Misconception is one pick that differed from what happened, counted
// over the room's runs.
type Misconception struct {
	Lesson           string
	Picked, Happened text.Text
	Count            int
}

// Misconceptions are the picks that differed from what really happened
// (runs the server's side judged), most common first.
func Misconceptions(rows []Row) []Misconception {
	by := map[[3]string]*Misconception{}
	var out []*Misconception
	for _, r := range rows {
		v := r.Votes
		l, err := steps.LessonByName(v.Lesson)
		if v.Lesson == "" || err != nil || v.Pick == 0 || v.Seen < 0 || v.Pick-1 == v.Seen {
			continue
		}
		_, choices := l.AttendeeQuestion()
		if v.Pick > len(choices) || v.Seen >= len(choices) {
			continue
		}
		k := [3]string{v.Lesson, choices[v.Pick-1].EN, choices[v.Seen].EN}
		if by[k] == nil {
			by[k] = &Misconception{Lesson: v.Lesson, Picked: choices[v.Pick-1], Happened: choices[v.Seen]}
			out = append(out, by[k])
		}
		by[k].Count++
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	res := make([]Misconception, len(out))
	for i, m := range out {
		res[i] = *m
	}
	return res
}
