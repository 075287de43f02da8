#!/usr/bin/env bash
# Runs every rdmatour test, installing what they need first:
#   formatting and vet, unit + process tests (with -race), each fuzz target
#   briefly, a tour where one side idles for 3 minutes, and the real-verbs tests on Soft-RoCE inside a QEMU guest,
#   between two wired guests, and on Soft-iWARP in one and two guests.
# Set RDMATOUR_SKIP_QEMU=1 to leave out the guest (it needs root).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
set +e

passed=0
failed=0
failures=()
stage() {
	local name=$1
	shift
	local start=$SECONDS
	echo "=== $name"
	if "$@"; then
		passed=$((passed + 1))
		echo "--- ok   $name ($((SECONDS - start))s)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "--- FAIL $name ($((SECONDS - start))s)"
	fi
}

# tmux drives the TUI in a real terminal; iproute2 makes the two-host
# network namespaces; the rdma-core headers (building needs none) are what
# TestABIMatchesRdmaCoreHeaders checks abi.h against, and what the seed C
# program and the QEMU harness compile with. rdma-core ships rxe(7) and
# manpages-dev bind(2) and friends, which TestCitedManPagesExist looks up:
# every stage installs what it needs here, before the unit stage, so a new
# machine runs the same tests as one where the guest stage ran before.
deps() { rdmatour_build_deps && rdmatour_apt_install tmux iproute2 libibverbs-dev librdmacm-dev rdma-core manpages-dev; }
format() {
	local bad
	bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
	[ -z "$bad" ] || { echo "gofmt would change:"; echo "$bad"; return 1; }
}
vet() { go vet ./...; }
# The packages whose tests take longest go first (measured with -race
# on 2026-12-02: tui 189 s, cmd/rdmatour 121 s, buildcheck 78 s, then
# record, export, verbs/sim, steps, docs): started last, tui alone ran
# on after the others had finished.
unit() {
	local first="./tui ./cmd/rdmatour ./verbs/rdmacore/buildcheck ./export ./verbs/sim ./steps ./record ./docs"
	local rest
	rest=$(go list ./... | sed "s,^github.com/rdmatour/rdmatour,.," | grep -vxF -e "${first// /$'\n'}" -e .)
	go test -race -count=1 -timeout 15m $first ./ $rest
}
# fuzzone runs one target. Go's fuzzer sometimes ends a run on a loaded
# machine with "context deadline exceeded" and no failing input (its
# coordinator timing out on a worker, not a finding); such a run is tried
# once more. A real finding always writes "Failing input written".
fuzzone() {
	local pkg=$1 target=$2 budget=$3 try
	for try in 1 2; do
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$budget" "$pkg" >/tmp/rdmatour-fuzz.log 2>&1 && return 0
		grep -q 'Failing input written' /tmp/rdmatour-fuzz.log && return 1
		grep -q 'context deadline exceeded' /tmp/rdmatour-fuzz.log || return 1
		echo "fuzz $target: the fuzzer timed out on a worker without a finding; trying once more"
	done
	return 1
}
fuzz() {
	local pkg target ok=0
	# The targets are found by their declarations, not by `go test -list`,
	# which compiles every package's tests (all 18) to list the 6 that fuzz.
	for pkg in $(grep -l '^func Fuzz' $(git ls-files '*_test.go' 2>/dev/null || find . -name '*_test.go') | xargs -n1 dirname | sort -u | sed "s,^\([^.]\),./\1,"); do
		for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$pkg"/*_test.go); do
			echo "fuzz $pkg $target"
			# Targets that run a whole TCP exchange per input (up to a
			# second each) get a count: a time limit that expires inside
			# one input makes the fuzzer report "context deadline exceeded".
			local budget=${RDMATOUR_FUZZTIME:-3s}
			case $target in FuzzListenerHandshake | FuzzConnectReply | FuzzEstablishedStream | FuzzResponderMemory) budget=${RDMATOUR_FUZZCOUNT:-150x} ;; esac
			fuzzone "$pkg" "$target" "$budget" || { cat /tmp/rdmatour-fuzz.log; ok=1; }
		done
	done
	return $ok
}
# Human pace: two terminals (tmux), the server's user reads for 3 minutes
# mid-handshake while the client waits; the tour then completes. Slow by
# design, so it runs once, here, rather than in every unit run.
humanpace() { RDMATOUR_IDLE=${RDMATOUR_IDLE:-3m} go test -count=1 -timeout 10m -run '^TestIdleMidTourInTmux$' ./cmd/rdmatour; }
# guests_skip says why the QEMU guests cannot run here, if they cannot.
guests_skip() {
	if [ "${RDMATOUR_SKIP_QEMU:-}" = 1 ]; then
		echo "RDMATOUR_SKIP_QEMU=1"
	elif [ "$(id -u)" -ne 0 ]; then
		echo "the QEMU guests need root"
	fi
}
# inguests SCRIPT: one guest stage, once the siw guest's build is done.
inguests() {
	local why
	why=$(guests_skip)
	if [ -n "$why" ]; then
		echo "skipped: $why"
		return 0
	fi
	siwwait
	"$1"
}
realverbs() { inguests scripts/realverbs.sh; }
twohosts() { inguests scripts/twohosts.sh; }
iwarp() { inguests scripts/iwarp.sh; }

# The Soft-iWARP guest needs siw.ko, built from Debian's kernel source
# (build-siw.sh: linux-headers and a 139 MB linux-source download, about
# a minute, mostly waiting on the network). It is built in the
# background while the unit tests run; the guest stages wait for it
# first. The harness's packages are installed before, not alongside: a
# test that looks for tshark must not find it half-installed.
siwlog=$(mktemp /tmp/rdmatour-siw-build.XXXXXX)
siwpid=
prebuild_siw() {
	[ -z "$(guests_skip)" ] || return 0
	local cache=${RDMATOUR_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmatour/qemu}
	mkdir -p "$cache"
	scripts/qemu/ensure-deps.sh || return 1
	flock "$cache/vm.lock" env RDMATOUR_GUEST_SIW=only scripts/qemu/build-guest.sh >"$siwlog" 2>&1 &
	siwpid=$!
}
siwwait() {
	[ -n "$siwpid" ] || return 0
	local start=$SECONDS rc=0
	wait "$siwpid" || rc=$?
	siwpid=
	echo "(the siw guest, built alongside the unit tests: exit $rc; waited $((SECONDS - start))s for it)"
	[ "$rc" -eq 0 ] || cat "$siwlog"   # the iWARP stage builds it again and fails with its own error
}

stage "install build dependencies" deps
stage "install the QEMU harness's packages (the siw guest then builds alongside)" prebuild_siw
stage "gofmt" format
stage "go vet" vet
stage "unit and process tests (go test -race)" unit
stage "fuzz targets" fuzz
# The human-pace test mostly sleeps (one side idles for 3 minutes), so it
# runs alongside the guest stages instead of adding its 3 minutes to CI.
humanlog=$(mktemp /tmp/rdmatour-humanpace.XXXXXX)
humanstart=$SECONDS
humanpace >"$humanlog" 2>&1 &
humanpid=$!
stage "real verbs on Soft-RoCE in a QEMU guest" realverbs
stage "two hosts: Soft-RoCE in two wired QEMU guests" twohosts
stage "iWARP: Soft-iWARP in one guest and in two wired QEMU guests" iwarp
humanwait() {
	local rc=0
	wait "$humanpid" || rc=$?
	cat "$humanlog"
	rm -f "$humanlog"
	echo "(ran alongside the guest stages: $((SECONDS - humanstart))s)"
	return $rc
}
stage "human pace: one side idles 3 minutes mid-tour (tmux, alongside)" humanwait

rm -f "$siwlog"
echo
[ ${#failures[@]} -eq 0 ] || printf 'failed: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
