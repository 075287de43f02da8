package steps

// Turn is one keypress of the one-terminal demo: which side runs which step.
type Turn struct {
	Side  Role
	Index int // index into that side's Steps()
}

// DemoPlan interleaves a server and a client tour in the order the two
// programs would naturally progress side by side: a side keeps the turn
// while its next step has what it needs from the other side (Step.After),
// then hands over. Lessons change the dependencies, and so the order.
func DemoPlan(server, client []Step) []Turn {
	tours := map[Role][]Step{Server: server, Client: client}
	ran := map[Role]map[StepID]bool{Server: {}, Client: {}}
	has := map[Role]map[StepID]bool{Server: {}, Client: {}}
	for role, tour := range tours {
		for _, st := range tour {
			has[role][st.ID] = true
		}
	}
	other := func(r Role) Role {
		if r == Server {
			return Client
		}
		return Server
	}
	ready := func(r Role, pos int) bool {
		o := other(r)
		for _, id := range tours[r][pos].After {
			if has[o][id] && !ran[o][id] {
				return false
			}
		}
		return true
	}
	pos := map[Role]int{}
	var plan []Turn
	side := Server
	for pos[Server] < len(server) || pos[Client] < len(client) {
		o := other(side)
		switch {
		case pos[side] < len(tours[side]) && ready(side, pos[side]):
		case pos[o] < len(tours[o]) && ready(o, pos[o]):
			side = o
		case pos[side] >= len(tours[side]):
			side = o // both blocked or this side done: never stall
		}
		st := tours[side][pos[side]]
		plan = append(plan, Turn{side, pos[side]})
		ran[side][st.ID] = true
		pos[side]++
	}
	return plan
}
