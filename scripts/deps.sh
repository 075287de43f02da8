#!/usr/bin/env bash
# Installs what building and running rdmatour need on Debian/Ubuntu, only
# when it is missing: Go (1.21+ can fetch the exact toolchain go.mod names)
# and a C compiler with libc headers (gcc, libc6-dev) for cgo. No rdma-core
# headers: verbs/rdmacore/abi.h declares the ABI the real backend uses.
# The rdma-core run-time libraries (libibverbs1, librdmacm1 and the
# providers in ibverbs-providers) are what rdmatour dlopens for real RDMA;
# without them it still runs, on its simulated NIC. Sourced by run.sh and
# test.sh.
set -euo pipefail

rdmatour_apt_install() {
	local missing=()
	for pkg in "$@"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { echo "rdmatour: need root (or sudo) to install: ${missing[*]}" >&2; return 1; }
		sudo="sudo"
	fi
	echo "rdmatour: installing ${missing[*]}" >&2
	$sudo apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

rdmatour_build_deps() {
	local pkgs=(gcc libc6-dev libibverbs1 librdmacm1 ibverbs-providers)
	command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || pkgs+=(golang-go)
	rdmatour_apt_install "${pkgs[@]}"
	if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
		export PATH="/usr/local/go/bin:$PATH"
	fi
	rdmatour_go_toolchain
}

# go.mod names the Go it needs. A go of 1.21 or later fetches that
# toolchain by itself (GOTOOLCHAIN=auto); an older one (Debian 12 ships
# 1.19) can still download it as a module through the configured module
# proxy, after which it is put first on PATH.
rdmatour_go_toolchain() {
	local have minor want dir tmp
	have=$(go env GOVERSION 2>/dev/null || go version | awk '{print $3}')
	minor=$(echo "${have#go}" | cut -d. -f2)
	if [ "${have#go1.}" != "$have" ] && [ "${minor:-0}" -ge 21 ]; then
		export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
		return 0
	fi
	want=go$(awk '$1 == "go" {print $2; exit}' "$(dirname "${BASH_SOURCE[0]}")/../go.mod")
	echo "rdmatour: $have is too old to fetch $want by itself; downloading the $want toolchain module" >&2
	tmp=$(mktemp -d) # outside any module, so go mod download takes the path as given
	dir=$(cd "$tmp" && GO111MODULE=on GOFLAGS=-mod=mod go mod download -json "golang.org/toolchain@v0.0.1-$want.$(go env GOOS)-$(go env GOARCH)" |
		sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
	rmdir "$tmp"
	[ -n "$dir" ] || { echo "rdmatour: could not download Go $want" >&2; return 1; }
	# Module zips keep no file modes: make the toolchain's programs executable.
	find "$dir/bin" "$dir/pkg/tool" -type f -exec chmod 0555 {} + 2>/dev/null
	export PATH="$dir/bin:$PATH" GOTOOLCHAIN=local
	unset GOROOT
}
