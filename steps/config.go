package steps

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Config says what one side does.
type Config struct {
	Role   Role
	Notify Notify
	// Track is how the QP is brought up (TrackCM, the zero value, or
	// TrackManual).
	Track Track
	// Completion is how this side waits for completions (--completion).
	Completion Completion
	Provider   verbs.Provider
	// BackendWhy explains the backend choice on screen.
	BackendWhy text.Text

	// Bind is where the server listens (address may be unspecified, port
	// 0 lets the system pick).
	Bind netip.AddrPort
	// Server is the address the client connects to; Src optionally pins
	// the client's source address (the seed's client_src_ip).
	Server netip.AddrPort
	Src    netip.Addr
	// Message is what the client RDMA-WRITEs ("" = DefaultMessage).
	Message string
	// Name, on a client, is what a workshop room calls this attendee
	// (--name, or the host's name): with it the hello carries the
	// attendee's vote, their prediction and their name
	// (privdata/hellovote.go). "" sends none.
	Name string
	// MessageSize, when not 0, is how many bytes the WRITE carries: the
	// message padded with spaces to MessageSize-1 characters, and its NUL
	// (--message-size; a size above the path MTU shows segmentation).
	MessageSize int
	// Timeout bounds every wait on the peer or the network after the
	// connection request; 0 means 30 s. In an Interactive run it bounds
	// only the waits on the network (address and route resolution).
	Timeout time.Duration
	// Interactive says a person drives this side (the TUI, or plain mode
	// without --auto): a wait on the peer lasts as long as the peer is
	// alive, since its user may be reading. The protocol's own timers
	// still end it (see waitBound), and a vanished peer ends it at once.
	Interactive bool
	// AcceptTimeout bounds the server's wait for a client; 0 = forever
	// (the seed waits forever; Ctrl-C ends it).
	AcceptTimeout time.Duration
	// Lesson is the deliberate mistake to make (nil = the plain tour),
	// resolved once at the edge (the command line, a peer's hello, a
	// recording) with ParseLesson; nothing inside steps looks it up again.
	Lesson *Lesson
	// RNRRetry is rnr_retry_count for rdma_connect and rdma_accept (0..7,
	// 7 = forever). The seed leaves it 0.
	RNRRetry uint8
	// Tour is which tour runs (--tour; the zero value is the seed's WRITE
	// tour): WRITE, READ, atomics, or UD (tour_ud.go).
	Tour TourKind
	// Edits are the learner's changes to the calls' arguments (--edit);
	// each side keeps those for steps its tour has (editsession.go).
	Edits Edits
	// Recorder, when set, is told every finished step and the teardown
	// (--record); see history.go.
	Recorder Recorder
	// Wire is what this side's QP does to the packets it sends (--wire;
	// the simulated NIC only, see impair.go).
	Wire verbs.WireFaults
	// MemlockLimit is how many bytes this process may pin
	// (RLIMIT_MEMLOCK; 0: unlimited or not known): a data MR edited
	// longer than that is refused (reg-mr-data.length).
	MemlockLimit uint64
	// FollowsRoom, on a client with a Name, says in its hello that it
	// will start again with a room's plan if the room turns it away with
	// one (no --tour or --lesson was asked for): the room does not count
	// it as turned away.
	FollowsRoom bool
}

// MaxRNRRetry is the largest rnr_retry_count: a 3-bit field where 7
// means "retry forever".
const MaxRNRRetry = 7

// DefaultTimeout is what a zero Config.Timeout means.
const DefaultTimeout = 30 * time.Second

// ConfigError is a Config that cannot run, with a learner-level reason
// (naming the command-line flag when there is one). The CLI reports it as
// a usage error.
type ConfigError struct {
	// Reason has no Chinese where it comes from elsewhere (an unknown
	// lesson's list of names): In then gives the English.
	Reason text.Text
}

func (e *ConfigError) Error() string { return e.Reason.EN }

// In is the reason in lang, English where there is no Chinese.
func (e *ConfigError) In(lang text.Lang) string { return e.Reason.In(lang) }

func configErrorf(format string, args ...any) error {
	return &ConfigError{Reason: text.Same(fmt.Sprintf(format, args...))}
}

// configError is a ConfigError in both languages.
func configError(reason text.Text) error { return &ConfigError{Reason: reason} }

// Validate checks every value a learner chooses. NewSession calls it, and
// the CLI calls it before opening any backend, so both refuse the same
// things with the same words. Every error is a *ConfigError.
func (c Config) Validate() error {
	if c.Role.String() == "" {
		return configErrorf("unknown role %d", int(c.Role))
	}
	if c.Notify.String() == "" {
		return configErrorf("unknown notify mode %d: use send, doorbell or imm", int(c.Notify))
	}
	if c.Track.String() == "" {
		return configErrorf("unknown track %d: use cm or manual", int(c.Track))
	}
	if c.Role == Client && (!c.Server.IsValid() || c.Server.Port() == 0) {
		return configError(text.Text{EN: "the client needs the server's address and a port 1-65535", ZH: "client 需要 server 的地址和一个 1-65535 的端口"})
	}
	if len(c.Message)+1 > BufSize {
		return configError(text.Text{EN: fmt.Sprintf("--message is %d bytes; at most %d fit the %d-byte buffer with its NUL", len(c.Message), BufSize-1, BufSize), ZH: fmt.Sprintf("--message 有 %d 字节；%d 字节的 buffer 加上结尾的 NUL，最多放得下 %d 字节", len(c.Message), BufSize, BufSize-1)})
	}
	if err := c.checkMessageSize(); err != nil {
		return err
	}
	if err := CheckName(c.Name); err != nil {
		return err
	}
	if c.Timeout < 0 {
		return configError(text.Text{EN: fmt.Sprintf("--timeout %v: must be positive (how long a wait on the peer may take, e.g. 30s)", c.Timeout), ZH: fmt.Sprintf("--timeout %v：必须为正数（等待对端最多多久，例如 30s）", c.Timeout)})
	}
	if c.AcceptTimeout < 0 {
		return configError(text.Text{EN: fmt.Sprintf("--wait-client %v: must not be negative (how long to wait for a client, e.g. 5m; 0 waits forever)", c.AcceptTimeout), ZH: fmt.Sprintf("--wait-client %v：不能为负数（等 client 多久，例如 5m；0 表示一直等）", c.AcceptTimeout)})
	}
	if c.RNRRetry > MaxRNRRetry {
		return configError(text.Text{EN: fmt.Sprintf("--rnr-retry %d is out of range: 0..%d (%d = retry forever)", c.RNRRetry, MaxRNRRetry, MaxRNRRetry), ZH: fmt.Sprintf("--rnr-retry %d 超出范围：0..%d（%d 表示无限重试）", c.RNRRetry, MaxRNRRetry, MaxRNRRetry)})
	}
	if err := c.validateTour(); err != nil {
		return err
	}
	if c.Lesson != nil && c.Track == TrackManual && c.Lesson.Track != TrackManual {
		return configError(text.Text{EN: fmt.Sprintf("--track manual and --lesson %s cannot be combined: that lesson runs on the rdma_cm track (leave --track out)", c.Lesson.Name), ZH: fmt.Sprintf("--track manual 不能和 --lesson %s 一起用：这一课在 rdma_cm 路线上运行（去掉 --track）", c.Lesson.Name)})
	}
	return nil
}

// validateTour refuses an unknown tour and what its catalogue row
// cannot do; a lesson of another tour is refused unless --tour was left
// at write (then the lesson's own tour runs).
func (c Config) validateTour() error {
	d, ok := TourOf(c.Tour)
	if !ok {
		names := tourNames()
		last := len(names) - 1
		return configErrorf("unknown tour %d: use %s or %s", int(c.Tour), strings.Join(names[:last], ", "), names[last])
	}
	if d.validate != nil {
		if err := d.validate(c); err != nil {
			return err
		}
	}
	if c.Completion.String() == "" {
		return configErrorf("unknown completion mode %d: use poll or event", int(c.Completion))
	}
	if c.Completion == CompletionEvent && c.Tour == TourUD {
		return configErrorf("--completion event and --tour %s cannot be combined: the ud tour polls its CQ (completion channels are shown on the RC tours)", c.Tour)
	}
	if l := c.Lesson; l != nil && c.Tour != TourWrite && l.Tour != c.Tour {
		return configErrorf("--tour %s and --lesson %s cannot be combined: that lesson runs on the %s tour (leave --tour out)", c.Tour, l.Name, l.Tour)
	}
	if !d.Notifies && c.Track == TrackManual {
		return configErrorf("--tour %s and --track manual cannot be combined: the manual track runs the write tour", c.Tour)
	}
	return nil
}

// checkMessageSize: the padded message and its NUL must fit the buffer,
// and padding cannot make the message shorter.
func (c Config) checkMessageSize() error {
	msg := c.Message
	if msg == "" {
		msg = DefaultMessage
	}
	switch {
	case c.MessageSize == 0:
		return nil
	case c.MessageSize < 0 || c.MessageSize > BufSize:
		return configError(text.Text{EN: fmt.Sprintf("--message-size %d is out of range: the bytes to WRITE, NUL included, at most %d (the data buffer's size)", c.MessageSize, BufSize), ZH: fmt.Sprintf("--message-size %d 超出范围：WRITE 的字节数（含 NUL）最多 %d（data buffer 的大小）", c.MessageSize, BufSize)})
	case c.MessageSize < len(msg)+1:
		return configError(text.Text{EN: fmt.Sprintf("--message-size %d is smaller than the message (%d bytes with its NUL): give at least %d, or a shorter --message", c.MessageSize, len(msg)+1, len(msg)+1), ZH: fmt.Sprintf("--message-size %d 比消息还短（消息含 NUL 共 %d 字节）：至少给 %d，或者缩短 --message", c.MessageSize, len(msg)+1, len(msg)+1)})
	}
	return nil
}

// messageBytes is what the client's WRITE carries: the message, padded
// with spaces to MessageSize-1 characters when MessageSize is set, and
// its NUL. This is what snprintf(buf, BUF_SIZE, "%-*s", size - 1, msg)
// writes.
func (c Config) messageBytes() []byte {
	msg := []byte(c.Message)
	if pad := c.MessageSize - 1 - len(msg); pad > 0 {
		msg = append(msg, bytes.Repeat([]byte{' '}, pad)...)
	}
	return append(msg, 0)
}

// withDefaults fills in what a zero value means.
func (c Config) withDefaults() Config {
	if c.Message == "" {
		c.Message = DefaultMessage
	}
	if c.MessageSize == 0 && c.Lesson != nil {
		c.MessageSize = c.Lesson.messageSize
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	return c
}

// Role is the side of the connection a session plays.
type Role int

const (
	Server Role = iota
	Client
)

// Peer is the other side's role.
func (r Role) Peer() Role {
	if r == Server {
		return Client
	}
	return Server
}

// String returns "server" or "client" ("" for no known role).
func (r Role) String() string {
	switch r {
	case Server:
		return "server"
	case Client:
		return "client"
	}
	return ""
}

// ParseRole parses "server" or "client".
func ParseRole(s string) (Role, error) {
	switch strings.ToLower(s) {
	case "server":
		return Server, nil
	case "client":
		return Client, nil
	}
	return 0, fmt.Errorf("unknown role %q: use server or client", s)
}

// Notify is how the client tells the server its RDMA WRITE has landed.
type Notify int

const (
	// NotifySend: a two-sided SEND "RDMA_WRITE_DONE" into the server's
	// posted RECV.
	NotifySend Notify = iota
	// NotifyDoorbell: a second one-sided RDMA WRITE of a big-endian 1 into
	// the server's doorbell flag, which the server CPU polls.
	NotifyDoorbell
	// NotifyImm: the data itself is written with RDMA_WRITE_WITH_IMM, which
	// consumes the server's posted RECV and raises a completion there.
	NotifyImm
)

// String returns "send", "doorbell" or "imm" ("" for no known mode).
func (n Notify) String() string {
	switch n {
	case NotifySend:
		return "send"
	case NotifyDoorbell:
		return "doorbell"
	case NotifyImm:
		return "imm"
	}
	return ""
}

// ParseNotify parses "send", "doorbell" or "imm".
func ParseNotify(s string) (Notify, error) {
	switch strings.ToLower(s) {
	case "send":
		return NotifySend, nil
	case "doorbell":
		return NotifyDoorbell, nil
	case "imm":
		return NotifyImm, nil
	}
	return 0, fmt.Errorf("unknown notify mode %q: use send, doorbell or imm", s)
}

// Track is how the QP is brought up.
type Track int

const (
	// TrackCM lets librdmacm move the QP (rdma_create_qp); the default.
	TrackCM Track = iota
	// TrackManual brings the QP up by hand: ibv_create_qp, then
	// rdma_init_qp_attr + ibv_modify_qp for every transition.
	TrackManual
)

// String returns "cm" or "manual" ("" for no known track).
func (t Track) String() string {
	switch t {
	case TrackCM:
		return "cm"
	case TrackManual:
		return "manual"
	}
	return ""
}

// ParseTrack parses "cm" or "manual".
func ParseTrack(s string) (Track, error) {
	switch strings.ToLower(s) {
	case "cm":
		return TrackCM, nil
	case "manual":
		return TrackManual, nil
	}
	return 0, fmt.Errorf("unknown track %q: use cm or manual", s)
}

// ErrNoProvider is a Config built without a backend: a programming error,
// not a learner's.
var ErrNoProvider = errors.New("steps: no verbs provider")
