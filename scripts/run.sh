#!/usr/bin/env bash
# Builds rdmatour (installing what the build needs) and runs it with the
# given arguments:  scripts/run.sh demo | server | client 10.0.0.1 | doctor
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
rdmatour_build_deps
mkdir -p bin
go build -o bin/rdmatour ./cmd/rdmatour
exec bin/rdmatour "$@"
