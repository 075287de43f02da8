#!/usr/bin/env bash
# For `go test -exec`: go calls this as `go-test-exec.sh BINARY ARGS...` from
# the package directory; run the test binary in the Soft-RoCE guest.
#   go test -exec "$PWD/scripts/qemu/go-test-exec.sh" ./verbs/...
# (use an absolute path: go starts it from each package's directory).
# RDMATOUR_QEMU_TIMEOUT (seconds, default 600) bounds each guest.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/run-in-guest.sh" \
    --timeout "${RDMATOUR_QEMU_TIMEOUT:-600}" -- "$@"
