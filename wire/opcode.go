package wire

import "fmt"

// Opcode is a BTH opcode: the top three bits name the transport (000 RC,
// 011 UD), the low five the operation (IBA vol. 1, table 38).
type Opcode uint8

// RC opcodes.
const (
	RCSendFirst              Opcode = 0x00
	RCSendMiddle             Opcode = 0x01
	RCSendLast               Opcode = 0x02
	RCSendLastWithImm        Opcode = 0x03
	RCSendOnly               Opcode = 0x04
	RCSendOnlyWithImm        Opcode = 0x05
	RCWriteFirst             Opcode = 0x06
	RCWriteMiddle            Opcode = 0x07
	RCWriteLast              Opcode = 0x08
	RCWriteLastWithImm       Opcode = 0x09
	RCWriteOnly              Opcode = 0x0A
	RCWriteOnlyWithImm       Opcode = 0x0B
	RCReadRequest            Opcode = 0x0C
	RCReadResponseFirst      Opcode = 0x0D
	RCReadResponseMiddle     Opcode = 0x0E
	RCReadResponseLast       Opcode = 0x0F
	RCReadResponseOnly       Opcode = 0x10
	RCAcknowledge            Opcode = 0x11
	RCAtomicAcknowledge      Opcode = 0x12
	RCCompareSwap            Opcode = 0x13
	RCFetchAdd               Opcode = 0x14
	RCSendLastWithInvalidate Opcode = 0x16
	RCSendOnlyWithInvalidate Opcode = 0x17
)

// UD opcodes.
const (
	UDSendOnly        Opcode = 0x64
	UDSendOnlyWithImm Opcode = 0x65
)

// Which extension headers follow the BTH, in wire order.
const (
	hasDETH = 1 << iota
	hasRETH
	hasAtomicETH
	hasAETH
	hasAtomicAckETH
	hasImmDt
	hasIETH
	hasPayload
)

// opInfo is what the opcode fixes about a packet.
type opInfo struct {
	name  string
	flags int
}

// lookup is the table of opcodes this package knows (RC and UD; rdma_cm
// uses no UC or RD, and rxe sends none).
func lookup(o Opcode) (opInfo, bool) {
	switch o {
	case RCSendFirst:
		return opInfo{"SEND_FIRST", hasPayload}, true
	case RCSendMiddle:
		return opInfo{"SEND_MIDDLE", hasPayload}, true
	case RCSendLast:
		return opInfo{"SEND_LAST", hasPayload}, true
	case RCSendLastWithImm:
		return opInfo{"SEND_LAST_WITH_IMMEDIATE", hasImmDt | hasPayload}, true
	case RCSendOnly:
		return opInfo{"SEND_ONLY", hasPayload}, true
	case RCSendOnlyWithImm:
		return opInfo{"SEND_ONLY_WITH_IMMEDIATE", hasImmDt | hasPayload}, true
	case RCWriteFirst:
		return opInfo{"RDMA_WRITE_FIRST", hasRETH | hasPayload}, true
	case RCWriteMiddle:
		return opInfo{"RDMA_WRITE_MIDDLE", hasPayload}, true
	case RCWriteLast:
		return opInfo{"RDMA_WRITE_LAST", hasPayload}, true
	case RCWriteLastWithImm:
		return opInfo{"RDMA_WRITE_LAST_WITH_IMMEDIATE", hasImmDt | hasPayload}, true
	case RCWriteOnly:
		return opInfo{"RDMA_WRITE_ONLY", hasRETH | hasPayload}, true
	case RCWriteOnlyWithImm:
		return opInfo{"RDMA_WRITE_ONLY_WITH_IMMEDIATE", hasRETH | hasImmDt | hasPayload}, true
	case RCReadRequest:
		return opInfo{"RDMA_READ_REQUEST", hasRETH}, true
	case RCReadResponseFirst:
		return opInfo{"RDMA_READ_RESPONSE_FIRST", hasAETH | hasPayload}, true
	case RCReadResponseMiddle:
		return opInfo{"RDMA_READ_RESPONSE_MIDDLE", hasPayload}, true
	case RCReadResponseLast:
		return opInfo{"RDMA_READ_RESPONSE_LAST", hasAETH | hasPayload}, true
	case RCReadResponseOnly:
		return opInfo{"RDMA_READ_RESPONSE_ONLY", hasAETH | hasPayload}, true
	case RCAcknowledge:
		return opInfo{"ACKNOWLEDGE", hasAETH}, true
	case RCAtomicAcknowledge:
		return opInfo{"ATOMIC_ACKNOWLEDGE", hasAETH | hasAtomicAckETH}, true
	case RCCompareSwap:
		return opInfo{"COMPARE_SWAP", hasAtomicETH}, true
	case RCFetchAdd:
		return opInfo{"FETCH_ADD", hasAtomicETH}, true
	case RCSendLastWithInvalidate:
		return opInfo{"SEND_LAST_WITH_INVALIDATE", hasIETH | hasPayload}, true
	case RCSendOnlyWithInvalidate:
		return opInfo{"SEND_ONLY_WITH_INVALIDATE", hasIETH | hasPayload}, true
	case UDSendOnly:
		return opInfo{"SEND_ONLY", hasDETH | hasPayload}, true
	case UDSendOnlyWithImm:
		return opInfo{"SEND_ONLY_WITH_IMMEDIATE", hasDETH | hasImmDt | hasPayload}, true
	}
	return opInfo{}, false
}

// Known reports whether the package can decode packets with this opcode.
func (o Opcode) Known() bool { _, ok := lookup(o); return ok }

// Transport is "RC", "UC", "RD", "UD" or "CNP": the top three bits.
func (o Opcode) Transport() string {
	switch o >> 5 {
	case 0:
		return "RC"
	case 1:
		return "UC"
	case 2:
		return "RD"
	case 3:
		return "UD"
	case 4:
		return "CNP"
	}
	return "?"
}

// String is the IBA name with its transport: "RC RDMA_WRITE_ONLY".
func (o Opcode) String() string {
	if info, ok := lookup(o); ok {
		return o.Transport() + " " + info.name
	}
	return fmt.Sprintf("opcode 0x%02x", uint8(o))
}

func (o Opcode) has(flag int) bool { info, _ := lookup(o); return info.flags&flag != 0 }
