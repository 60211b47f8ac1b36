#!/usr/bin/env bash
# Builds Custodian and runs every test: unit tests, and the integration suite, which starts the platform
# (a throwaway PostgreSQL cluster, every service and the gateway as real processes) and drives it over HTTPS.
set -euo pipefail
cd "$(dirname "$0")/../.."
# How long each part took, printed at the end (or where it stopped): CI's budget is kept part by part.
timings=()
part() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  timings+=("$(printf '%-20s %5d s' "$name" $((SECONDS - start)))")
  return $status
}
trap 'printf "test.sh: %s\n" "${timings[@]}" "$(printf "%-20s %5d s" total $SECONDS)"' EXIT
part install ./Deploy/dev/install-dependencies.sh --tests
mkdir -p "$HOME/.cache/custodian"
# The Python test tools' environment (Deploy/dev/python-tools.sh; pip takes a minute or more on a fresh machine) is made
# while Swift builds, so that no test waits for it: four tests use it, and on CI's fresh machine their waiting held the
# test process's threads while timed tests ran beside them.
bash -c 'source Deploy/dev/python-tools.sh' > "$HOME/.cache/custodian/python-tools.log" 2>&1 &
python_tools=$!
# The compose test's Docker engines and stand-in base images (Deploy/dev/compose.sh) are fetched and made while Swift
# builds: that is network and disk more than CPU. Only as root (a daemon of its own), and only for the full run.
prepare=""
if [ $# -eq 0 ] && [ "$(id -u)" -eq 0 ]; then
  ./Deploy/dev/compose.sh --prepare > "$HOME/.cache/custodian/compose-prepare.log" 2>&1 &
  prepare=$!
fi
# The style every Swift file keeps (.swift-format, line length 150), with the toolchain's own formatter; any finding fails.
part format swift format lint --strict --recursive Services Shared Tests Package.swift
# The integration suite runs the executables, so build every product, not just the test bundle.
part build swift build --build-tests
part python-tools wait $python_tools || { cat "$HOME/.cache/custodian/python-tools.log"; exit 1; }
part tests swift test --skip-build "$@"
# With no filter, the scripts that put the whole platform under load and faults run too, one after another, so the
# tests above do not compete with them for the cores.
if [ $# -eq 0 ]; then
  FAULTS_DURATION=30s part replica-faults ./Deploy/dev/replica-faults.sh
  part chaos ./Deploy/dev/chaos.sh
  part console-browser ./Deploy/dev/console-browser.sh
  part fuzz ./Deploy/dev/fuzz.sh
  # Hosts made of network namespaces (needs root, as CI runs); exit status 77 means it could not make them.
  status=0
  part multihost ./Deploy/dev/multihost.sh || status=$?
  if [ $status -eq 77 ]; then echo "multihost.sh skipped: network namespaces cannot be made here"; elif [ $status -ne 0 ]; then exit $status; fi
  # docker compose on real engines (26.1 and 20.10), built from Deploy/Dockerfile; needs root for its daemon.
  if [ -n "$prepare" ]; then
    part compose-prepare wait $prepare || { cat "$HOME/.cache/custodian/compose-prepare.log"; exit 1; }
    part compose ./Deploy/dev/compose.sh
  else
    echo "compose.sh skipped: it runs a Docker daemon of its own, which needs root"
  fi
fi
