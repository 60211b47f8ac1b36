#!/usr/bin/env bash
# Builds Custodian and runs the whole platform locally (PostgreSQL included). Arguments go to `custodian up`,
# e.g. `./Deploy/dev/up.sh --insecure-http --port 8080`.
set -euo pipefail
cd "$(dirname "$0")/../.."
./Deploy/dev/install-dependencies.sh
swift build
exec "$(swift build --show-bin-path)/custodian" up "$@"
