package steps

// Section is a part of one side's live state: the resource a step
// creates or changes. Each Step names its section, so a front end can
// show the learner what the call just did (the TUI scrolls its live-state
// pane there) without knowing the tour's step IDs.
type Section int

// The sections, in the order the live state lists them.
const (
	// SectionNone: the step changes nothing the live state shows on
	// its own (teardown shows every section going away).
	SectionNone Section = iota
	// SectionDevice is the RDMA device and port the CM id is bound to.
	SectionDevice
	// SectionCMID is the rdma_cm_id: addresses, last event, connected.
	SectionCMID
	// SectionPD is the protection domain.
	SectionPD
	// SectionCQ is the completion queue and the completions polled.
	SectionCQ
	// SectionQP is the queue pair: its state, capabilities and PSNs.
	SectionQP
	// SectionMRs are the registered memory regions and their keys.
	SectionMRs
	// SectionData is the data buffer an RDMA WRITE lands in.
	SectionData
	// SectionDoorbell is the doorbell flag.
	SectionDoorbell
	// SectionRemote is remote_info: what the server hands out in the
	// accept's private data, and what the client reads from it.
	SectionRemote
)

// Sections lists every section but SectionNone, in display order.
func Sections() []Section {
	return []Section{SectionDevice, SectionCMID, SectionPD, SectionCQ, SectionQP, SectionMRs, SectionData, SectionDoorbell, SectionRemote}
}

func (s Section) String() string {
	switch s {
	case SectionDevice:
		return "device"
	case SectionCMID:
		return "cm-id"
	case SectionPD:
		return "pd"
	case SectionCQ:
		return "cq"
	case SectionQP:
		return "qp"
	case SectionMRs:
		return "mrs"
	case SectionData:
		return "data"
	case SectionDoorbell:
		return "doorbell"
	case SectionRemote:
		return "remote-info"
	}
	return "none"
}
