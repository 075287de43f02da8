package record

import (
	"errors"
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
)

// MismatchError says two recordings given to replay as one demo are not
// the two ends of one connection: What differs, and its value on each
// side.
type MismatchError struct {
	What           string
	Server, Client string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the two recordings are not one connection: the server's %s is %s, the client's %s: replay each file on its own",
		e.What, e.Server, e.Client)
}

// Merge joins a server's and a client's recording (in either order) into
// one, replayed as the demo. The two must be the ends of one connection:
// the same tour, each side's address the other's peer, each QP the
// other's destination (where both recorded them).
func Merge(a, b *Recording) (*Recording, error) {
	if len(a.Sides) != 1 || len(b.Sides) != 1 {
		return nil, errors.New("to replay two files, give one server and one client recording (a demo recording holds both sides already)")
	}
	if a.Sides[0].Config.Role == steps.Client {
		a, b = b, a
	}
	if a.Sides[0].Config.Role != steps.Server || b.Sides[0].Config.Role != steps.Client {
		return nil, errors.New("to replay two files, give one server and one client recording")
	}
	if err := oneConnection(a.Sides[0], b.Sides[0]); err != nil {
		return nil, err
	}
	h := a.Header
	h.Command = "demo"
	h.Sides = append(append([]SideHeader(nil), a.Header.Sides...), b.Header.Sides...)
	return &Recording{Header: h, Sides: []Replay{a.Sides[0], b.Sides[0]}}, nil
}

// oneConnection checks that srv and cli recorded the same connection.
func oneConnection(srv, cli Replay) error {
	if s, c := srv.Initial.Tour, cli.Initial.Tour; s != c {
		return &MismatchError{What: "tour", Server: s.String(), Client: c.String()}
	}
	se, ce := lastEnds(srv), lastEnds(cli)
	if se.local != "" && ce.peer != "" && se.local != ce.peer {
		return &MismatchError{What: "address", Server: se.local, Client: "peer " + ce.peer}
	}
	if se.peer != "" && ce.local != "" && se.peer != ce.local {
		return &MismatchError{What: "peer", Server: se.peer, Client: "address " + ce.local}
	}
	if se.qpn != 0 && ce.destQPN != 0 && se.qpn != ce.destQPN {
		return &MismatchError{What: "QP number", Server: fmt.Sprintf("0x%x", se.qpn), Client: fmt.Sprintf("destination QP 0x%x", ce.destQPN)}
	}
	if se.destQPN != 0 && ce.qpn != 0 && se.destQPN != ce.qpn {
		return &MismatchError{What: "destination QP", Server: fmt.Sprintf("0x%x", se.destQPN), Client: fmt.Sprintf("QP 0x%x", ce.qpn)}
	}
	return nil
}

// connEnds is what one side recorded of its end of the connection; ""
// and 0 where it recorded nothing.
type connEnds struct {
	local, peer  string
	qpn, destQPN uint32
}

// lastEnds reads the connection's ends from the side's latest snapshots
// that name them (a listening id has no peer; a UD client learns the
// server's QP from the SIDR reply).
func lastEnds(r Replay) connEnds {
	var e connEnds
	for _, ps := range r.Steps {
		snap := ps.Snapshot
		if id := snap.CMID; id != nil && id.Peer != "" && !id.Listening {
			e.local, e.peer = id.Local, id.Peer
		}
		if qp := snap.QP; qp != nil && qp.Num != 0 {
			e.qpn = qp.Num
			if qp.Attr.DestQPNum != 0 {
				e.destQPN = qp.Attr.DestQPNum
			}
		}
		if ud := snap.UD; ud != nil && ud.RemoteQPN != 0 {
			e.destQPN = ud.RemoteQPN
		}
	}
	return e
}
