package record

import (
	"encoding/json"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// How a snapshot is written. steps.Snapshot is encoded by encoding/json
// with four fields replaced (a field of the outer struct with the same JSON
// name shadows the embedded one):
//   - Steps is left out: the replay rebuilds it from the outcomes.
//   - Timeline and Packets are written as deltas on the step line
//     (stepLine.Timeline, stepLine.Packets), not in every snapshot.
//   - Data (4 KiB and a timestamp per byte) is written as its bytes up to
//     the last non-zero one, and the change times as runs.
type snapJSON struct {
	steps.Snapshot
	Steps    *struct{} `json:"Steps,omitempty"`
	Timeline *struct{} `json:"Timeline,omitempty"`
	Packets  *struct{} `json:"Packets,omitempty"`
	Data     *bufJSON  `json:"Data,omitempty"`
	// Why hides Snapshot.Why: its English where versions 1 and 2 kept
	// the string, its Chinese beside it (see kvJSON).
	Why   string
	WhyZH string `json:",omitempty"`
}

// bufJSON is a steps.BufferState: Len bytes, of which Bytes are the
// first (the rest are zero), and the times bytes last changed.
type bufJSON struct {
	Len     int       `json:"len"`
	Bytes   []byte    `json:"bytes,omitempty"`
	Changed []runJSON `json:"changed,omitempty"`
}

// runJSON says bytes [Off, Off+N) last changed at At.
type runJSON struct {
	Off int       `json:"off"`
	N   int       `json:"n"`
	At  time.Time `json:"at"`
}

func encodeSnapshot(s steps.Snapshot) snapJSON {
	out := snapJSON{Snapshot: s, Why: s.Why.EN, WhyZH: s.Why.ZH}
	out.Snapshot.Why = text.Text{}
	out.Snapshot.Steps, out.Snapshot.Timeline, out.Snapshot.Packets = nil, nil, nil
	out.Snapshot.Data = steps.BufferState{}
	if s.Data.Bytes != nil {
		out.Data = encodeBuffer(s.Data)
	}
	return out
}

func encodeBuffer(b steps.BufferState) *bufJSON {
	end := len(b.Bytes)
	for end > 0 && b.Bytes[end-1] == 0 {
		end--
	}
	out := &bufJSON{Len: len(b.Bytes), Bytes: b.Bytes[:end]}
	for _, r := range b.Changes {
		if r.Off >= 0 && r.N > 0 && r.Off+r.N <= len(b.Bytes) && !r.At.IsZero() {
			out.Changed = append(out.Changed, runJSON{Off: r.Off, N: r.N, At: r.At})
		}
	}
	return out
}

// maxBuffer bounds a decoded buffer: the snapshot's data buffer is
// steps.BufSize, and a corrupt length costing a few bytes in the file
// must not make the replay allocate megabytes per line (a timestamp per
// byte is 24 bytes).
const maxBuffer = steps.BufSize

func (b *bufJSON) decode() (steps.BufferState, error) {
	if b.Len < 0 || b.Len > maxBuffer || len(b.Bytes) > b.Len {
		return steps.BufferState{}, fmtErr("a buffer of %d bytes with %d bytes of data is not possible", b.Len, len(b.Bytes))
	}
	out := steps.BufferState{Bytes: make([]byte, b.Len)}
	copy(out.Bytes, b.Bytes)
	for i, r := range b.Changed {
		if r.Off < 0 || r.N <= 0 || r.Off > b.Len-r.N {
			return steps.BufferState{}, fmtErr("changed bytes [%d, +%d) lie outside the %d-byte buffer", r.Off, r.N, b.Len)
		}
		if i > 0 && r.Off < b.Changed[i-1].Off+b.Changed[i-1].N {
			return steps.BufferState{}, fmtErr("changed bytes [%d, +%d) overlap or come before the run before them", r.Off, r.N)
		}
		out.Changes = append(out.Changes, steps.ChangeRun{Off: r.Off, N: r.N, At: r.At})
	}
	return out, nil
}

// decode turns the JSON form back into a snapshot (without Steps,
// Timeline and Packets, which the reader fills in).
func (s *snapJSON) decode() (steps.Snapshot, error) {
	snap := s.Snapshot
	snap.Why = text.Text{EN: s.Why, ZH: s.WhyZH}
	if s.Data != nil {
		d, err := s.Data.decode()
		if err != nil {
			return snap, err
		}
		snap.Data = d
	}
	return snap, nil
}

// outcomeJSON is a steps.Outcome without its C statements (the screen's
// C text, Call, is kept; export-c works on live sessions only).
type outcomeJSON struct {
	steps.Outcome
	C *struct{} `json:"C,omitempty"`
	// Results hides Outcome.Results: each is stored as a kvJSON.
	Results []kvJSON
}

// kvJSON is a steps.KV as a recording keeps it: the English stays where
// every version of the format has it ({"Name": ..., "Value": ...}), so
// files of versions 1 and 2 read as before and an older rdmatour reads
// this one; the Chinese rides beside it, "" in a file that predates it
// (its replay then shows the English names on a zh screen).
type kvJSON struct {
	Name    string
	NameZH  string `json:",omitempty"`
	Value   string
	ValueZH string `json:",omitempty"`
}

func encodeOutcome(o steps.Outcome) outcomeJSON {
	o.C = nil
	j := outcomeJSON{Outcome: o}
	for _, kv := range o.Results {
		j.Results = append(j.Results, kvJSON{Name: kv.Name.EN, NameZH: kv.Name.ZH, Value: kv.Value.EN, ValueZH: kv.Value.ZH})
	}
	j.Outcome.Results = nil
	return j
}

// decode is the outcome as the step returned it (without its C).
func (j outcomeJSON) decode() steps.Outcome {
	o := j.Outcome
	o.C, o.Results = nil, nil
	for _, kv := range j.Results {
		o.Results = append(o.Results, steps.KV{Name: text.Text{EN: kv.Name, ZH: kv.NameZH}, Value: text.Text{EN: kv.Value, ZH: kv.ValueZH}})
	}
	return o
}

// errorJSON is a steps.RecordedError.
type errorJSON struct {
	Msg      string    `json:"msg"`
	Explain  text.Text `json:"explain"`
	Canceled bool      `json:"canceled,omitempty"`
}

func encodeError(err error) *errorJSON {
	re := steps.Record(err)
	if re == nil {
		return nil
	}
	return &errorJSON{Msg: re.Msg, Explain: re.Explain, Canceled: re.Canceled}
}

func (e *errorJSON) decode() *steps.RecordedError {
	if e == nil {
		return nil
	}
	return &steps.RecordedError{Msg: e.Msg, Explain: e.Explain, Canceled: e.Canceled}
}

// marshalLine is one JSON line, newline included.
func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
