package steps

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/rdmatour/rdmatour/verbs"
)

// RunPair runs both sides of one tour to the end on two providers, in
// the order the demo runs them (DemoPlan): the server until it listens,
// then the client, then every turn. A lesson's expected errors are part
// of the run. cfg is shared by both sides; RunPair fills in each side's
// Role, Provider and addresses (the server binds cfg.Bind, or loopback
// on any port), and only the client gets cfg's Message. Both sessions
// are closed when it returns; their steps, outcomes and snapshots stay
// readable. export-c uses it to learn the statements a tour makes; the
// tests use it to run every tour, lesson and track. When a step fails,
// the sessions made so far come back with the error (closed), so a
// caller can read how far each side got (export-c of an edit that fails).
func RunPair(ctx context.Context, cfg Config, serverNIC, clientNIC verbs.Provider) (map[Role]*Session, error) {
	scfg := cfg
	scfg.Role, scfg.Provider, scfg.Message, scfg.MessageSize = Server, serverNIC, "", 0
	if !scfg.Bind.IsValid() {
		scfg.Bind = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0)
	}
	srv, err := NewSession(scfg)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	for srv.Next() < len(srv.tour) {
		st := srv.tour[srv.Next()]
		if _, err := srv.RunNext(ctx); err != nil {
			return map[Role]*Session{Server: srv}, fmt.Errorf("running server step %s: %w", st.ID, err)
		}
		if st.Reaches(MilestoneListening) {
			break
		}
	}
	ccfg := cfg
	ccfg.Role, ccfg.Provider, ccfg.Bind, ccfg.Server = Client, clientNIC, netip.AddrPort{}, srv.listener.LocalAddr()
	cli, err := NewSession(ccfg)
	if err != nil {
		return map[Role]*Session{Server: srv}, err
	}
	defer cli.Close()
	sides := map[Role]*Session{Server: srv, Client: cli}
	for _, turn := range DemoPlan(srv.tour, cli.tour) {
		s := sides[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		if _, err := s.RunNext(ctx); err != nil {
			return sides, fmt.Errorf("running %s step %s: %w", turn.Side, s.tour[turn.Index].ID, err)
		}
	}
	return sides, nil
}
