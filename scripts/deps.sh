#!/usr/bin/env bash
# Installs what building rdmatour needs on Debian/Ubuntu, only when it is
# missing: Go (1.21+ can fetch the exact toolchain go.mod names), gcc for cgo,
# and the rdma-core headers (libibverbs-dev, librdmacm-dev) the real backend
# compiles against. Sourced by run.sh and test.sh.
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
	local pkgs=(gcc libc6-dev libibverbs-dev librdmacm-dev pkg-config)
	command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || pkgs+=(golang-go)
	rdmatour_apt_install "${pkgs[@]}"
	if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
		export PATH="/usr/local/go/bin:$PATH"
	fi
	# go.mod names Go 1.26; an older go (1.21+) downloads it from the module
	# proxy by itself.
	export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
}
