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

data=$(mktemp -d /tmp/custodian-faults.XXXXXX)
chmod 755 "$data"   # PostgreSQL runs as its own user when this script runs as root
CUSTODIAN_RATE_LIMITS=off CUSTODIAN_LOG_LEVEL=warning \
  "$bin/custodian" up --data-dir "$data/.custodian" --port "$port" --insecure-http --no-demo \
  --replicas devices=3,vault=2 > "$data/up.log" 2>&1 &
platform=$!
trap 'kill -INT $platform 2>/dev/null; wait $platform 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 240); do grep -q "custodian ready" "$data/up.log" && break; sleep 0.5; done
grep -q "custodian ready" "$data/up.log" || { cat "$data/up.log"; exit 1; }

# The current process id of a replica, from the supervisor's "started"/"restarted (pid N" lines.
pid_of() { grep -E "^$1 +(re)?started \(pid" "$data/up.log" | tail -1 | sed -E 's/.*\(pid ([0-9]+).*/\1/'; }
say() { awk -v now="$(date +%s.%N)" -v start="$start" -v what="$*" 'BEGIN { printf "%6.1fs  %s\n", now - start, what }'; }

load() {   # name: runs loadgen in the background, its report in $data/<name>.json
  "$bin/custodian" loadgen --scenario mixed --rate "$rate" --ramp-up 2s --duration "$duration" \
    --server "http://127.0.0.1:$port" --data-dir "$data/.custodian" --report "$data/$1.json" > "$data/$1.log" 2>&1 &
  loadgen=$!
  start=$(date +%s.%N)
}

verdict() {   # name, whether errors are allowed
  python3 - "$data/$1.json" "$1" "$2" <<'PYTHON'
import json, sys
report, name, errors_allowed = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3] == "yes"
total = report["total"]
lost, duplicated = (sum(v.get(k, 0) for v in report["verification"]) for k in ("lost", "duplicated"))
checked = sum(v["acknowledged"] for v in report["verification"])
print(f"{name}: {total['operations']} requests, {total['throughput']:.1f}/s, p50 {total['p50Milliseconds']:.1f} ms, "
      f"p99 {total['p99Milliseconds']:.1f} ms, {total['errors']} errors {total['failures'] or ''}, "
      f"{checked} acknowledged writes read back: {lost} lost, {duplicated} duplicated")
ok = lost == 0 and duplicated == 0 and (errors_allowed or total["errors"] == 0) and total["operations"] > 0
print(f"{name}: {'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
PYTHON
}

status=0
echo "== 1. graceful: SIGTERM to a replica of devices and of vault, then a rolling restart of each, under $rate requests/s"
load graceful
sleep 6;  say "SIGTERM devices-2 (pid $(pid_of devices-2))"; kill -TERM "$(pid_of devices-2)"
sleep 5;  say "SIGTERM vault-1 (pid $(pid_of vault-1))"; kill -TERM "$(pid_of vault-1)"
sleep 5;  say "custodian restart devices"; "$bin/custodian" restart devices --data-dir "$data/.custodian"
          say "custodian restart vault";   "$bin/custodian" restart vault --data-dir "$data/.custodian"
          say "done; waiting for the load to end"
wait $loadgen || true
verdict graceful no || status=1

echo "== 2. kill -9 of a replica of devices and of vault, under $rate requests/s"
load killed
sleep 8;  say "kill -9 devices-3 (pid $(pid_of devices-3))"; kill -KILL "$(pid_of devices-3)"
sleep 8;  say "kill -9 vault-2 (pid $(pid_of vault-2))"; kill -KILL "$(pid_of vault-2)"
wait $loadgen || true
verdict killed yes || status=1
grep -E "exited|restarted" "$data/up.log" | sed 's/^/   up: /'
exit $status
