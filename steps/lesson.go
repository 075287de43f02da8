package steps

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"syscall"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Expect is the error a lesson's step should end with. When it does, the
// step counts as done (the error is the point) and the tour goes on.
type Expect struct {
	// What names the error as the learner will see it, e.g.
	// "remote access error".
	What  text.Text
	match func(error) bool
}

// Matches reports whether err is the expected error; a nil Expect (the
// step expects no error) matches nothing.
func (e *Expect) Matches(err error) bool { return e != nil && err != nil && e.match(err) }

// expectStatus expects a completion with one of these statuses.
func expectStatus(statuses ...verbs.WCStatus) *Expect {
	var what string
	for i, st := range statuses {
		if i > 0 {
			what += " / "
		}
		what += st.String()
	}
	return &Expect{What: text.Text{EN: what, ZH: what}, match: func(err error) bool {
		var ce *CompletionError
		if !errors.As(err, &ce) {
			return false
		}
		for _, st := range statuses {
			if ce.WC.Status == st {
				return true
			}
		}
		return false
	}}
}

// expectErrno expects verbs call fn to fail with errno.
func expectErrno(fn string, errno syscall.Errno) *Expect {
	what := fmt.Sprintf("%s = %s", fn, verbs.ErrnoName(errno))
	return &Expect{What: text.Text{EN: what, ZH: what}, match: func(err error) bool {
		var ve *verbs.Error
		return errors.As(err, &ve) && ve.Func == fn && ve.Errno == errno
	}}
}

// expectPeerFailure is what the server sees when the client's mistake
// broke the connection: its posted RECV flushed (the responder QP went to
// ERR) or the client hanging up.
func expectPeerFailure() *Expect {
	flushed := expectStatus(verbs.WCWRFlushErr)
	return &Expect{
		What: text.Text{EN: "Work Request Flushed Error or RDMA_CM_EVENT_DISCONNECTED", ZH: "Work Request Flushed Error 或 RDMA_CM_EVENT_DISCONNECTED"},
		match: func(err error) bool {
			var ce *CMEventError
			return flushed.match(err) || (errors.As(err, &ce) && ce.Got == verbs.EventDisconnected)
		}}
}

// Lesson is the tour with one deliberate mistake whose real error is the
// point. Both sides run the same lesson (--lesson on each). Each lesson
// is declared once, in its own file (lesson_<name>.go): its entry, its
// tour edits, the mistake its steps make, its question and any step only
// it has. Lessons lists them in teaching order.
type Lesson struct {
	Name    string
	Title   text.Text
	Summary text.Text
	// Topic is what `rdmatour lessons` lists it under (Lessons sets it).
	Topic text.Text
	// Notify is the notify mode the lesson needs.
	Notify Notify
	// Tour is the tour the lesson changes (the zero value: write).
	Tour TourKind
	// Track is the QP track the lesson runs on (the zero value: the
	// rdma_cm one); a manual-track lesson edits the ibv_modify_qp steps.
	Track Track
	// edit changes one side's tour: which steps run and what they expect.
	// Nil for a lesson that changes no step.
	edit func(cfg Config, t *tourEdit)
	// preset is the lesson as an experiment: the edits (--edit's
	// language, side-prefixed) its mistake is, applied before the
	// learner's own. A mistake no edit can say is a Mistake hook.
	preset []string
	// server and client are the mistakes steps make on each side.
	server, client Mistake
	// by is the side whose code has the mistake; noMistake for an
	// explanation-only lesson. A plain-tour peer of that side adopts the
	// lesson's expectations (see adoptPeerExpectations).
	by Role
	// wire is the packets the side cfg runs loses on purpose (nil: none):
	// a lesson about the wire rather than a mistake in the code.
	wire func(cfg Config) verbs.WireFaults
	// messageSize is the WRITE's size the lesson needs (0: the tour's),
	// unless --message-size says otherwise.
	messageSize int
	// predict is the question the lesson asks the side cfg runs, nil for
	// a side that sees no answer. Every lesson asks at least one side
	// (TestEveryLessonAsks).
	predict func(cfg Config) *Prediction
}

// noMistake marks a lesson in which neither side makes a mistake.
const noMistake Role = -1

// Lessons lists every lesson, in teaching order: the write tour's, then
// the read and atomic tours'. A new lesson is one file and one line here.
func Lessons() []Lesson {
	return slices.Concat(
		inTopic(TopicReceive, lessonNoRecv()),
		inTopic(TopicAccess, lessonBadRKey(), lessonOutOfBounds(), lessonNoRemoteWrite(), lessonHtonlAddress()),
		inTopic(TopicOrdering, lessonPostBeforeConnect(), lessonDoorbellOrdering()),
		inTopic(TopicCompletions, lessonLostWakeup()),
		inTopic(TopicSendQueue, lessonNeverSignaled(), lessonSignalEveryNth(), lessonInlineTooBig()),
		inTopic(TopicSetup, lessonNoSuchAddress(), lessonRemoteWriteWithoutLocal(), lessonMemlock()),
		inTopic(TopicAccess, lessonNoRemoteRead()),
		inTopic(TopicReadAtomic, lessonReadDepthZero(), lessonAtomicUnaligned()),
		inTopic(TopicAccess, lessonNoRemoteAtomic()),
		inTopic(TopicWire, lessonLostWrite(), lessonLostAck(), lessonPeerVanished(), lessonRetryZero(), lessonLostReadResponse()),
		inTopic(TopicAddressing, lessonWrongGIDIndex(), lessonRTRMask(), lessonPathMTU()),
		inTopic(TopicRecovery, lessonRecoverQP(), lessonRecoverOneSide()),
	)
}

// The topics `rdmatour lessons` groups the lessons under, in the order
// their first lesson comes.
var (
	TopicReceive     = text.Text{EN: "The receive queue", ZH: "接收队列"}
	TopicAccess      = text.Text{EN: "Keys, addresses and access rights", ZH: "key、地址与访问权限"}
	TopicOrdering    = text.Text{EN: "QP state and ordering", ZH: "QP 状态与顺序"}
	TopicCompletions = text.Text{EN: "Completion channels", ZH: "完成通道"}
	TopicSetup       = text.Text{EN: "Setup failures: before any connection", ZH: "建立阶段的失败：连接之前"}
	TopicReadAtomic  = text.Text{EN: "READ and atomics", ZH: "READ 与原子操作"}
	TopicWire        = text.Text{EN: "Lost packets and retries", ZH: "丢包与重传"}
	TopicAddressing  = text.Text{EN: "Addressing and ibv_modify_qp (manual track)", ZH: "寻址与 ibv_modify_qp（manual 路线）"}
	TopicRecovery    = text.Text{EN: "Bringing a QP back from ERR (manual track)", ZH: "把 QP 从 ERR 拉回来（manual 路线）"}
)

// inTopic files lessons under topic.
func inTopic(topic text.Text, lessons ...Lesson) []Lesson {
	for i := range lessons {
		lessons[i].Topic = topic
	}
	return lessons
}

// LessonByName finds a lesson.
func LessonByName(name string) (Lesson, error) {
	var names []string
	for _, l := range Lessons() {
		if l.Name == name {
			return l, nil
		}
		names = append(names, l.Name)
	}
	sort.Strings(names)
	return Lesson{}, fmt.Errorf("unknown lesson %q: `rdmatour lessons` lists them (%v)", name, names)
}

// String returns the lesson's name, what --lesson takes ("" for none).
func (l *Lesson) String() string {
	if l == nil {
		return ""
	}
	return l.Name
}

// ParseLesson finds the lesson called name; the error lists the lessons.
func ParseLesson(name string) (*Lesson, error) {
	l, err := LessonByName(name)
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// LessonName is the lesson's name, "" for the plain tour: what the hello,
// a recording and the command line carry.
func (c Config) LessonName() string {
	if c.Lesson == nil {
		return ""
	}
	return c.Lesson.Name
}

// apply is the lesson's version of one side's tour, or the first step
// its edits name that the tour lacks.
func (l Lesson) apply(cfg Config, tour []Step) ([]Step, error) {
	t := newTourEdit(cfg.Role, tour)
	if l.edit != nil {
		l.edit(cfg, t)
	}
	out, err := t.Result()
	if err != nil {
		return nil, fmt.Errorf("lesson %s: %w", l.Name, err)
	}
	return out, nil
}

// Preset is the lesson's edits, as --edit would take them: a lesson is a
// named experiment (`rdmatour demo --lesson bad-rkey` runs what
// `--edit client:post-write.rkey=lkey` runs, with its question and pages).
// A preset that does not parse (a bug TestLessonPresets catches) lists
// nothing here and stops NewSession with its error.
func (l Lesson) Preset() Edits {
	es, _ := l.presetEdits()
	return es
}

func (l Lesson) presetEdits() (Edits, error) {
	es, err := ParseEdits(l.preset)
	if err != nil {
		return nil, fmt.Errorf("lesson %s: preset: %w", l.Name, err)
	}
	for i := range es {
		es[i].Lesson = l.Name
	}
	return es, nil
}

// prediction is the question l asks the side cfg runs; nil for none.
func (l Lesson) prediction(cfg Config) *Prediction {
	if l.predict == nil {
		return nil
	}
	return l.predict(cfg)
}

// mistakeOf is the mistake l makes on role's side.
func (l Lesson) mistakeOf(role Role) Mistake {
	if role == Server {
		return l.server
	}
	return l.client
}

// withDataAccess shows the lesson's access flags on the server's
// reg-mr-data before it runs, then applies the rest of the lesson.
func withDataAccess(a verbs.Access, rest func(Config, *tourEdit)) func(Config, *tourEdit) {
	return func(cfg Config, t *tourEdit) {
		if cfg.Role == Server {
			tour, _ := TourOf(cfg.Tour)
			was := youWas{"access": c.C(tour.dataAccess(Server).String())} // the preset's edit, as the run prints it
			t.edit(IDRegMRData, func(st *Step) { _, _, reg := regMRCalls("buf", BufSize, a, was); st.Call = generic(reg) })
		}
		rest(cfg, t)
	}
}

// missingAccessNote is the note on reg-mr-data when a lesson leaves out
// a remote access flag the tour needs.
func missingAccessNote(kind TourKind, got verbs.Access) text.Text {
	tour, _ := TourOf(kind)
	missing := (tour.DataAccess &^ got).String()
	return text.Text{EN: fmt.Sprintf("The mistake of this lesson: no %s. Registration succeeds; the client's operation will not.", missing),
		ZH: fmt.Sprintf("本课故意犯的错：没有 %s。注册会成功，client 的操作不会。", missing)}
}

// serverWaitChoices are the ways the server's wait for the client's
// notification can end (the write tour's lessons ask the server this).
func serverWaitChoices() []Choice {
	return []Choice{
		landedChoice(true, text.Text{EN: "the client's message arrives and the RECV completes", ZH: "client 的消息到达，RECV 完成"}),
		statusChoice(verbs.WCWRFlushErr),
		statusChoice(verbs.WCRemAccessErr),
		eventChoice(verbs.EventDisconnected, text.Text{EN: "the client hangs up", ZH: "client 断开了连接"}),
	}
}
