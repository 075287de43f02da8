package steps

// Turn is one keypress of the one-terminal demo: which side runs which step.
type Turn struct {
	Side  Role
	Index int // index into that side's Steps()
}

// DemoPlan interleaves a server and a client tour in the order the two
// programs would naturally progress when run side by side: each side runs
// until its next step would wait for something only the other side can
// do, then the other side takes over.
func DemoPlan(server, client []Step) []Turn {
	// Each leg runs one side up to (not including) a step that needs the
	// other side first.
	type leg struct {
		side  Role
		until string // run up to, not including, this step ID ("" = to the end)
	}
	legs := []leg{
		{Server, "get-connect-request"}, // listen first, then let the client connect
		{Client, "get-established"},     // the client sends REQ and waits
		{Server, "wait-notify"},         // accept, ESTABLISHED; wait for the notification...
		{Client, "disconnect"},          // ...which the client's WRITE and notify provide
		{Server, "disconnect"},          // the server reads what landed
		{Client, "teardown"},            // the client hangs up
		{Server, ""},                    // the server sees it, and cleans up
		{Client, ""},
	}
	pos := map[Role]int{}
	tours := map[Role][]Step{Server: server, Client: client}
	var plan []Turn
	for i, l := range legs {
		tour := tours[l.side]
		for pos[l.side] < len(tour) && (l.until == "" || tour[pos[l.side]].ID != l.until) {
			plan = append(plan, Turn{l.side, pos[l.side]})
			pos[l.side]++
			// After the server's accept the client's ESTABLISHED can be
			// taken before the server's own.
			if l.side == Server && tour[pos[l.side]-1].ID == "accept" && i == 2 {
				if pos[Client] < len(client) && client[pos[Client]].ID == "get-established" {
					plan = append(plan, Turn{Client, pos[Client]})
					pos[Client]++
				}
			}
		}
	}
	return plan
}
