package steps

// An RC tour runs on one of the tracks (--track): how its QP is made,
// connected and let go. The skeleton (rc_steps.go) asks the track for
// the steps at those places and leaves everything else to the tour, so a
// track is one table per side, not a rewrite of a tour's steps.

// rcTrack is one track's steps at the skeleton's QP places.
type rcTrack struct {
	track Track
	// peer names the steps that send each CM message on this track: a
	// step waiting for the other side's message names it in After.
	peer cmSenders
	// createQP is role's steps where the QP is made, after create-cq.
	createQP func(role Role) []Step
	// handshake is role's steps from its CM message to ESTABLISHED: the
	// server's after post-recv, the client's after resolve-route.
	handshake func(role Role) []Step
	// hangUp is role's disconnect; the skeleton sets what it waits for.
	hangUp func(role Role) Step
	// ownsQP: the application created the QP (ibv_create_qp), so
	// teardown destroys it with ibv_destroy_qp.
	ownsQP bool
}

// cmSenders are the steps of a track that send the CM messages the other
// side waits for.
type cmSenders struct {
	req    StepID // the client's connect request (REQ)
	rep    StepID // the server's accept (REP)
	rtu    StepID // the client's step that sends the RTU
	hangUp StepID // either side's disconnect (DREQ, DREP)
}

// rcTracks is the track table, indexed by Track.
func rcTracks() []rcTrack {
	return []rcTrack{TrackCM: cmTrack(), TrackManual: manualTrack()}
}

// rcTrackOf is t's row of the table; a track it does not know (Validate
// refuses one) is the cm track.
func rcTrackOf(t Track) rcTrack {
	tracks := rcTracks()
	if t < 0 || int(t) >= len(tracks) {
		return tracks[TrackCM]
	}
	return tracks[t]
}

// cmTrack lets librdmacm own the QP (rdma_create_qp): it moves the QP
// through INIT, RTR and RTS inside rdma_accept and the client's wait for
// ESTABLISHED, and rdma_destroy_qp releases it.
func cmTrack() rcTrack {
	peer := cmSenders{req: IDConnect, rep: IDAccept, rtu: IDGetEstablished, hangUp: IDDisconnect}
	return rcTrack{track: TrackCM, peer: peer,
		createQP: func(role Role) []Step { return []Step{createQPStep(role)} },
		handshake: func(role Role) []Step {
			if role == Server {
				return []Step{acceptStep(), getEstablishedStep(Server, peer)}
			}
			return []Step{connectStep(), getEstablishedStep(Client, peer)}
		},
		hangUp: disconnectStep}
}
