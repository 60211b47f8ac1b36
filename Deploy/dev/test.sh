#!/usr/bin/env bash
# Builds Custodian and runs every test: unit tests, and the integration suite, which starts the platform
# (a throwaway PostgreSQL cluster, every service and the gateway as real processes) and drives it over HTTPS.
set -euo pipefail
cd "$(dirname "$0")/../.."
./Deploy/dev/install-dependencies.sh --tests
# The integration suite runs the executables, so build every product, not just the test bundle.
swift build --build-tests
swift test --skip-build "$@"
# With no filter, the scripts that put the whole platform under load and faults run too, one after another, so the
# tests above do not compete with them for the cores.
if [ $# -eq 0 ]; then
  FAULTS_DURATION=30s ./Deploy/dev/replica-faults.sh
  ./Deploy/dev/chaos.sh
  ./Deploy/dev/console-browser.sh
  ./Deploy/dev/fuzz.sh
  # Hosts made of network namespaces (needs root, as CI runs); exit status 77 means it could not make them.
  status=0
  ./Deploy/dev/multihost.sh || status=$?
  if [ $status -eq 77 ]; then echo "multihost.sh skipped: network namespaces cannot be made here"; elif [ $status -ne 0 ]; then exit $status; fi
fi
