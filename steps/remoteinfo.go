package steps

import (
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// localRemoteInfo is what the server hands out: its data buffer and its
// doorbell flag (the first 8 bytes of the doorbell buffer).
// In an atomic workshop room the data buffer is the room's shared
// counter (8 bytes) instead.
func (s *Session) localRemoteInfo() privdata.RemoteInfo {
	info := privdata.RemoteInfo{
		Addr: s.mrData.Addr(), RKey: s.mrData.RKey(), Size: BufSize,
		DoorbellAddr: s.mrDoor.Addr(), DoorbellRKey: s.mrDoor.RKey(), DoorbellSize: 8,
	}
	if s.sharedCounter != nil {
		info.Addr, info.RKey, info.Size = s.sharedCounter.Addr(), s.sharedCounter.RKey(), uint32(s.sharedCounter.Len())
	}
	return info
}

// counterMR is the MR that holds this server's counter in the atomic
// tour: the room's shared one in a workshop, its own buffer otherwise.
func (s *Session) counterMR() verbs.MR {
	if s.sharedCounter != nil {
		return s.sharedCounter
	}
	return s.mrData
}
