package steps

import (
	"time"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Snapshot is an immutable copy of one side's state, made for rendering.
// Nothing in it aliases the Session: the TUI may keep it as long as it likes.
type Snapshot struct {
	Role   Role
	Notify Notify
	Lesson string // "" for the plain tour
	Track  Track  // TrackCM or TrackManual
	// Tour is the tour this side runs (a lesson's own tour when it has one).
	Tour TourKind
	// LessonTitle and LessonSummary are the lesson's ("" for the plain
	// tour).
	LessonTitle, LessonSummary text.Text
	// Prediction is the lesson's question for this side, the learner's
	// pick and the answer once revealed; nil when none is asked.
	Prediction *PredictionState
	// Peer is what this side knows of the other side's tour (hello).
	Peer      PeerInfo
	Backend   string    // "rdma" or "sim"
	Simulated bool      // true: the screen must say "simulated NIC"
	Why       text.Text // why this backend was chosen (from cmd)

	Steps   []StepStatus // the whole tour, in order
	Next    int          // index of the next step to run; len(Steps) when done
	Running bool         // a step is in progress (waiting for the peer, a completion, ...)
	Done    bool         // the tour finished (successfully or not)
	// Released: this side's teardown ran; the objects it made are gone,
	// and what is left on screen (completions, the QP's history) is
	// what they were.
	Released bool
	Failed   bool
	Err      string // the last error, as a learner should read it

	Device *DeviceState // nil until the CM id is bound to a device
	// UsedDevice is the device and GID the connection used, kept after
	// teardown (the end of a tour names them: guide.RealTools).
	UsedDevice *DeviceState
	CMID       *CMIDState
	PD         *PDState
	CQ         *CQState
	QP         *QPState
	MRs        []MRState
	Data       BufferState // the 4096-byte data buffer (what RDMA WRITE lands in)
	Doorbell   *DoorbellState
	Remote     *RemoteState // remote_info: sent (server) or received (client)
	// UD is what a UD QP sends with (the ud tour only; nil otherwise).
	UD *UDState

	Timeline []TimelineEntry
	Packets  []WirePacket // this side's last packets (its QP's), oldest first
	// Wire says whether this side's packets can be shown, and if not why.
	Wire     WireStatus
	Counters map[string]uint64
	// CountersPerQP says Counters count this side's QP alone (a device
	// that counts per QP, such as the simulated NIC); otherwise they are
	// the port's, shared by every QP on the device (both sides of a demo).
	CountersPerQP bool
	// CounterDelta is how much each counter moved during the last step.
	CounterDelta map[string]uint64

	// Result is filled when the tour ends on the server: what landed and how
	// the server learned of it.
	Result *Result
}

// StepStatus is one step as the steps pane shows it.
type StepStatus struct {
	ID    string
	Title text.Text
	Call  string // the C call, generic form
	State RunState
	// Outcome is filled once the step ran.
	Outcome *Outcome
	// LessonStep: the lesson changes this step's result, so its normal
	// page would give the answer away (see guide.LessonStepPage).
	LessonStep bool
}

// RunState of a step.
type RunState int

const (
	Pending RunState = iota
	Active
	Succeeded
	FailedState
)

func (s RunState) String() string {
	return [...]string{"pending", "running", "ok", "failed"}[s]
}

// DeviceState is the device and port the CM id is on.
type DeviceState struct {
	Info     verbs.DeviceInfo
	Port     verbs.PortAttr
	PortNum  uint8
	GIDIndex int
	GID      string
}

// CMIDState is the connection's rdma_cm_id.
type CMIDState struct {
	Local, Peer string
	LastEvent   string // rdma_event_str of the last event
	EventStatus int
	Connected   bool
	Listening   bool
}

// PDState is the protection domain.
type PDState struct{ Handle uint32 }

// CQState is the completion queue with every completion polled so far.
type CQState struct {
	CQE         int
	Completions []verbs.WC
}

// QPState is the queue pair as ibv_query_qp last reported it.
type QPState struct {
	Num   uint32
	Type  string
	Attr  verbs.QPAttr
	Query string // "" or why ibv_query_qp failed
	// History is every state the QP has been seen in, oldest first.
	History []verbs.QPState
}

// UDState is what the ud tour adds to the QP: no connection, but a
// destination every SEND names. The client learns it from the SIDR reply
// (ESTABLISHED's param.ud) and makes an address handle from it; the
// server has none, it only receives.
type UDState struct {
	// HasDest: the SIDR reply came (client only).
	HasDest bool
	// RemoteQPN and RemoteQKey go in every SEND's wr.ud (remote_qpn,
	// remote_qkey): the server QP's number and Q_Key.
	RemoteQPN, RemoteQKey uint32
	// AH is the address vector of the address handle; nil until
	// ibv_create_ah, and again once it is destroyed.
	AH *verbs.AHAttr
}

// MRState is one row of the MR table.
type MRState struct {
	Name   string // "data", "doorbell", "recv", "send"
	Addr   uint64
	Len    int
	LKey   uint32
	RKey   uint32
	Access verbs.Access
}

// BufferState is a copy of a registered buffer with change tracking.
type BufferState struct {
	Bytes []byte
	// Changes say when bytes last changed, as runs sorted by offset
	// (ChangedAt, changeruns.go); nil: none has since the session
	// started. The TUI highlights bytes changed in the last second.
	// Shared between snapshots: read it, never write.
	Changes []ChangeRun
}

// DoorbellState is the doorbell flag (big-endian u64 at offset 0).
type DoorbellState struct {
	Value     uint64
	ChangedAt time.Time
}

// RemoteState is remote_info as sent in (server) or decoded from (client)
// the accept private data, next to the raw bytes.
type RemoteState struct {
	Info privdata.RemoteInfo
	// Raw is the private data as it travelled (may be padded to 196);
	// the client got it from the peer, so it prints escaped.
	Raw privdata.PeerBytes
}

// TimelineEntry is one message between the two sides.
type TimelineEntry struct {
	Time time.Time
	// FromServer says which way the arrow points.
	FromServer bool
	Label      string // "REQ", "REP", "RTU", "RDMA WRITE 42B", "ACK", "SEND", "NAK", ...
	Detail     string
	// DetailZH is Detail in Chinese where it has words ("" when it is
	// only values, or the peer's text).
	DetailZH string
	// fromWire: noted from this side's packets (see noteWire), not by a
	// step.
	fromWire bool
	// refused: a WRITE this side's NIC answered with a NAK (refusedWrite
	// reworded it: nothing was written).
	refused bool
	// Fate is what became of a posted message (flushed, never sent).
	Fate Fate
}

// Result is how the tour ended on the server.
type Result struct {
	// Tour is the tour that produced the result; for any but the write
	// tour, Summary says what happened and Via/Notice are unused.
	Tour    TourKind
	Summary text.Text
	Via     Notify             // how the server learned the data was there
	Message privdata.PeerBytes // the bytes in the data buffer up to the first NUL
	Notice  privdata.PeerBytes // the SEND text, the doorbell value or the imm_data
}

// WirePacket is a packet this side sent or received, with the step that
// was running when it was seen.
type WirePacket struct {
	verbs.Packet
	// Step is the ID of this side's step that was running; "" when none
	// was (the packet was the peer's doing, e.g. its WRITE landing here).
	Step string
}

// WireStatus says whether the wire view can show packets.
type WireStatus struct {
	// State: the simulated NIC records its packets; a real device shows
	// them while a capture runs on its network interface.
	State verbs.TraceState
	// Detail explains TraceNoPermission and TraceUnavailable.
	Detail string
	// OneHost: both ends of the connection are this machine on a real
	// device, so the packets loop back inside it and never reach a wire.
	OneHost bool
}
