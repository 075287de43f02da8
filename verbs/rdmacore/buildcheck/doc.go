// Package buildcheck has no code, only the tests of how verbs/rdmacore is
// built: that abi.h matches rdma-core's headers, that building needs no
// rdma-core headers, and that a CGO_ENABLED=0 build says it is sim-only.
// They compile and build on the build host, so they live apart from the
// rdmacore tests that scripts/realverbs.sh runs inside the QEMU guest.
package buildcheck
