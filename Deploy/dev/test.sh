#!/usr/bin/env bash
# Builds Custodian and runs every test: unit tests, and the integration suite, which starts the platform
# (a throwaway PostgreSQL cluster, every service and the gateway as real processes) and drives it over HTTPS.
set -euo pipefail
cd "$(dirname "$0")/../.."
./Deploy/dev/install-dependencies.sh
# The integration suite runs the executables, so build every product, not just the test bundle.
swift build --build-tests
swift test --skip-build "$@"
# With no filter, the scripts that put the whole platform under load and faults run too, one after another, so the
# tests above do not compete with them for the cores.
if [ $# -eq 0 ]; then
  FAULTS_DURATION=30s ./Deploy/dev/replica-faults.sh
  ./Deploy/dev/chaos.sh
fi
