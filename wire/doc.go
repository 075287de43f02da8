// Package wire is one model of the packets an RDMA connection puts on a
// RoCEv2 wire: the InfiniBand transport headers (BTH, RETH, AETH, ImmDt,
// DETH, AtomicETH, AtomicAckETH), the payload and the ICRC, carried in
// Ethernet / IPv4 / UDP 4791, and the connection-manager MADs that rdma_cm
// sends over QP1 (REQ, REP, RTU, REJ, DREQ, DREP with their private data).
//
// It encodes and decodes. The simulated NIC uses it to write the frames it
// would have sent as a pcap file Wireshark can open; real capture decodes
// what a device put on the wire with the same code. Layouts follow the
// InfiniBand Architecture Specification vol. 1 (chapter 9 for transport
// headers, chapter 12 for CM messages) and Annex A17 (RoCEv2); the ICRC
// follows the kernel's rxe (drivers/infiniband/sw/rxe/rxe_icrc.c).
//
// iWARP (siw) is TCP instead: iwarp.go decodes the MPA frames and FPDUs
// (DDP, RDMAP) of one direction's byte stream, and a live capture puts
// each direction back in order first (tcpseg.go, iwarp_flow.go).
//
// Decoders never trust a length they have not checked: which extension
// headers follow a BTH is fixed by its opcode, as on the wire.
package wire
