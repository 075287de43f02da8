package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// An intruder is the hostile review's W10 attendee: it connects to a
// workshop room as the write tour's client would (its hello, its QP, an
// MR of its own) and then, instead of the tour, aims one RDMA WRITE or
// READ at a guess of another attendee's buffer. A wrong guess moves its
// QP to ERR, so every guess takes a fresh connection, as in the review.
type intruder struct {
	prov   verbs.Provider
	server netip.AddrPort
}

// intrusion is one connection of the intruder's, established.
type intrusion struct {
	ec   verbs.EventChannel
	id   verbs.CMID
	pd   verbs.PD
	cq   verbs.CQ
	mr   verbs.MR
	own  privdata.RemoteInfo // what the room handed this connection
	done bool
}

// intruderPayload is what a WRITE that got through would leave behind.
const intruderPayload = "PWNED by the attendee next door"

// connect opens one connection to the room, up to ESTABLISHED.
func (in intruder) connect(ctx context.Context) (*intrusion, error) {
	ec, err := in.prov.CreateEventChannel()
	if err != nil {
		return nil, err
	}
	c := &intrusion{ec: ec}
	if err := c.setUp(ctx, in.server); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// setUp is the client's side of the seed's setup, without its WRITE.
func (c *intrusion) setUp(ctx context.Context, server netip.AddrPort) error {
	var err error
	if c.id, err = c.ec.CreateID(verbs.PSTCP); err != nil {
		return err
	}
	if err := c.id.ResolveAddr(netip.AddrPort{}, server, 2*time.Second); err != nil {
		return err
	}
	if _, err := c.await(ctx, verbs.EventAddrResolved); err != nil {
		return err
	}
	if err := c.id.ResolveRoute(2 * time.Second); err != nil {
		return err
	}
	if _, err := c.await(ctx, verbs.EventRouteResolved); err != nil {
		return err
	}
	dev := c.id.Device()
	if c.pd, err = dev.AllocPD(); err != nil {
		return err
	}
	if c.cq, err = dev.CreateCQ(8); err != nil {
		return err
	}
	qpCap := verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}
	if _, err = c.id.CreateQP(c.pd, verbs.QPInitAttr{SendCQ: c.cq, RecvCQ: c.cq, Type: verbs.QPTRC, Cap: qpCap}); err != nil {
		return err
	}
	if c.mr, err = c.pd.RegMR(steps.BufSize, verbs.AccessLocalWrite); err != nil {
		return err
	}
	if err := c.mr.Write(0, []byte(intruderPayload)); err != nil {
		return err
	}
	hello, err := steps.HelloFor(steps.TourWrite, "").Marshal()
	if err != nil {
		return err
	}
	if err := c.id.Connect(verbs.ConnParam{PrivateData: hello, ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RNRRetryCount: 7}); err != nil {
		return err
	}
	ev, err := c.await(ctx, verbs.EventEstablished)
	if err != nil {
		return err
	}
	c.own, err = privdata.ParseRemoteInfo(ev.PrivateData)
	return err
}

// await is the next CM event, which must be want.
func (c *intrusion) await(ctx context.Context, want verbs.CMEventType) (verbs.CMEvent, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	ev, err := c.ec.GetEvent(ctx)
	if err != nil {
		return ev, fmt.Errorf("waiting for %s: %w", want, err)
	}
	if ev.Type != want {
		return ev, fmt.Errorf("got %s (status %d), want %s", ev.Type, ev.Status, want)
	}
	return ev, nil
}

// try posts one WRITE (of intruderPayload) or READ (of 64 bytes) at
// (addr, rkey) and returns how it completed, and for a READ what came
// back.
func (c *intrusion) try(ctx context.Context, op verbs.WROpcode, g guess) (verbs.WCStatus, []byte, error) {
	n := uint32(len(intruderPayload))
	if op == verbs.WRRDMARead {
		n = 64
		if err := c.mr.Write(0, make([]byte, n)); err != nil {
			return 0, nil, err
		}
	}
	wr := verbs.SendWR{WRID: 1, Opcode: op, Flags: verbs.SendSignaled, RemoteAddr: g.addr, RKey: g.rkey,
		SGList: []verbs.SGE{{Addr: c.mr.Addr(), Length: n, LKey: c.mr.LKey()}}}
	if err := c.id.QP().PostSend(wr); err != nil {
		return 0, nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	wc, err := verbs.PollOne(pctx, c.cq)
	if err != nil {
		return 0, nil, err
	}
	if op != verbs.WRRDMARead {
		return wc.Status, nil, nil
	}
	got, err := c.mr.Read(0, int(n))
	return wc.Status, got, err
}

// close releases the connection, children before parents.
func (c *intrusion) close() error {
	var errs []error
	if c.id != nil {
		c.id.Disconnect() // the QP may be in ERR already: nothing to check
		if c.id.QP() != nil {
			errs = append(errs, c.id.DestroyQP())
		}
	}
	if c.mr != nil {
		errs = append(errs, c.mr.Dereg())
	}
	if c.cq != nil {
		errs = append(errs, c.cq.Destroy())
	}
	if c.pd != nil {
		errs = append(errs, c.pd.Dealloc())
	}
	if c.id != nil {
		errs = append(errs, c.id.Destroy())
	}
	errs = append(errs, c.ec.Destroy())
	return errors.Join(errs...)
}

// guess is one (address, rkey) an intruder aims at.
type guess struct {
	addr uint64
	rkey uint32
}

func (g guess) String() string { return fmt.Sprintf("addr 0x%x rkey 0x%x", g.addr, g.rkey) }

// neighbourGuesses are the guesses at a neighbour's buffer victim (its
// true address and rkey, as the strongest intruder would have them): every
// one of the 256 keys of its MR's index, and the neighbouring indices
// with the victim's key byte at the victim's address moved by each of
// spread: the review's brute force made exhaustive over what an 8-bit
// key leaves to guess.
func neighbourGuesses(victim guess, spread []int64) []guess {
	var gs []guess
	index := victim.rkey >> 8
	for b := uint32(0); b < 256; b++ {
		gs = append(gs, guess{victim.addr, index<<8 | b})
	}
	for _, di := range []int{-4, -3, -2, -1, 1, 2, 3, 4} {
		if int(index)+di < 0 {
			continue
		}
		rkey := uint32(int(index)+di)<<8 | victim.rkey&0xff
		for _, off := range spread {
			gs = append(gs, guess{uint64(int64(victim.addr) + off), rkey})
		}
	}
	return gs
}

// reviewGuesses are the hostile review's own brute force, relative to
// what the room handed the intruder: the buffer 0x8000 below its own, at
// the rkey index 4 below its own, every key byte.
func reviewGuesses(own privdata.RemoteInfo) []guess {
	var gs []guess
	index := own.RKey >> 8
	if index < 4 {
		return nil
	}
	for b := uint32(0); b < 256; b++ {
		gs = append(gs, guess{own.Addr - 0x8000, (index-4)<<8 | b})
	}
	return gs
}
