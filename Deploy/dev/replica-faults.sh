#!/usr/bin/env bash
# Replicas under load, stopped and replaced: starts `custodian up --replicas devices=3,vault=2` on a fresh data
# directory (plain HTTP, rate limits off: the load comes from one address) and runs `custodian loadgen --scenario mixed`
# twice, each time reading every acknowledged write back at the end:
#
#   1. graceful: one `devices` and one `vault` replica stopped with SIGTERM (the supervisor starts them again), then a
#      rolling restart of `devices` and one of `vault` (`custodian restart`). Passes with 0 errors, 0 lost, 0 duplicated.
#   2. kill -9: one `devices` and one `vault` replica killed outright, 8 s apart. Passes with 0 lost and 0 duplicated;
#      only the calls in flight on a killed replica may fail (their number is printed).
#
#   Deploy/dev/replica-faults.sh                 # the debug build in .build/debug (build it first)
#   CUSTODIAN_BIN=.build-release/release FAULTS_RATE=150 FAULTS_DURATION=60s Deploy/dev/replica-faults.sh
#
# The figures in docs/operations.md ("Replicas") come from this script.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${CUSTODIAN_BIN:-.build/debug}
rate=${FAULTS_RATE:-80}
duration=${FAULTS_DURATION:-45s}
port=${CUSTODIAN_FAULTS_PORT:-18491}
[ -x "$bin/custodian" ] || { echo "no $bin/custodian: build first (swift build)" >&2; exit 2; }

source Deploy/dev/lib/platform.sh
start_platform --replicas devices=3,vault=2

status=0
echo "== 1. graceful: SIGTERM to a replica of devices and of vault, then a rolling restart of each, under $rate requests/s"
load graceful --scenario mixed --rate "$rate" --ramp-up 2s --duration "$duration"
sleep 6;  say "SIGTERM devices-2 (pid $(pid_of devices-2))"; kill -TERM "$(pid_of devices-2)"
sleep 5;  say "SIGTERM vault-1 (pid $(pid_of vault-1))"; kill -TERM "$(pid_of vault-1)"
sleep 5;  say "custodian restart devices"; "$bin/custodian" restart devices --data-dir "$data/.custodian"
          say "custodian restart vault";   "$bin/custodian" restart vault --data-dir "$data/.custodian"
          say "done; waiting for the load to end"
wait $loadgen || true
verdict graceful no || status=1

echo "== 2. kill -9 of a replica of devices and of vault, under $rate requests/s"
load killed --scenario mixed --rate "$rate" --ramp-up 2s --duration "$duration"
sleep 8;  say "kill -9 devices-3 (pid $(pid_of devices-3))"; kill -KILL "$(pid_of devices-3)"
sleep 8;  say "kill -9 vault-2 (pid $(pid_of vault-2))"; kill -KILL "$(pid_of vault-2)"
wait $loadgen || true
verdict killed yes || status=1
grep -E "exited|restarted" "$data/up.log" | sed 's/^/   up: /'
exit $status
