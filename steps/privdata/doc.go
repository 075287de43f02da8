// Package privdata is the bytes that cross between the two sides in
// rdma_cm private data, and how bytes from the peer become text:
//
//   - RemoteInfo, the seed program's 32-byte big-endian struct remote_info
//     that the server puts first in the accept (REP) private data;
//   - Hello, rdmatour's short "which tour and lesson do you run" message
//     in the connect (REQ) private data and after remote_info in the REP;
//   - PeerBytes and EscapePeer, the only way bytes from the peer reach
//     the learner's terminal.
//
// It is a leaf: it imports only verbs, for the private-data limits. It
// knows nothing of tours or lessons: the hello carries the tour as its
// wire byte, and steps gives that byte its meaning (steps.Hello), so
// this package never imports steps.
package privdata
