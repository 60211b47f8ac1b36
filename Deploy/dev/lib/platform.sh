#!/usr/bin/env bash
# Sourced by the scripts that put a whole platform under load and faults (replica-faults.sh, chaos.sh): start
# `custodian up` on a fresh data directory, find its processes, run loadgen, judge its report.
#
# Needs $bin (the directory holding the executables) and $port. Sets $data (the temporary directory, removed at exit)
# and $platform (the pid of `custodian up`). A script that starts more than one platform, or more than a platform,
# sets own_exit_trap=1 and stops the platform and removes $data in an EXIT trap of its own (bench-tracing.sh).

# start_platform [custodian up options...]: plain HTTP, rate limits off (the load comes from one address).
start_platform() {
  data=$(mktemp -d /tmp/custodian-faults.XXXXXX)
  chmod 755 "$data"   # PostgreSQL runs as its own user when the script runs as root
  CUSTODIAN_RATE_LIMITS=off CUSTODIAN_LOG_LEVEL=warning \
    "$bin/custodian" up --data-dir "$data/.custodian" --port "$port" --insecure-http --no-demo "$@" > "$data/up.log" 2>&1 &
  platform=$!
  [ -n "${own_exit_trap:-}" ] || trap 'kill -INT $platform 2>/dev/null; wait $platform 2>/dev/null; rm -rf "$data"' EXIT
  for _ in $(seq 240); do grep -q "custodian ready" "$data/up.log" && break; sleep 0.5; done
  grep -q "custodian ready" "$data/up.log" || { cat "$data/up.log"; exit 1; }
}

# stop_platform: stops `custodian up` ($platform, if it runs) as Ctrl-C would; kills it if it is not gone in 30 s.
stop_platform() {
  if [ -n "${platform:-}" ] && kill -0 "$platform" 2>/dev/null; then
    kill -INT "$platform" 2>/dev/null || true
    for _ in $(seq 60); do kill -0 "$platform" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$platform" 2>/dev/null && { echo "$(basename "$0"): the platform did not stop in 30 s; killing it" >&2; kill -KILL "$platform"; }
    wait "$platform" 2>/dev/null || true
  fi
}

# pid_of NAME: the current process id of a supervised process, from the "started"/"restarted (pid N" lines.
pid_of() { grep -E "^$1 +(re)?started \(pid" "$data/up.log" | tail -1 | sed -E 's/.*\(pid ([0-9]+).*/\1/'; }

# say TEXT: TEXT with the seconds since the load started.
say() { awk -v now="$(date +%s.%N)" -v start="$start" -v what="$*" 'BEGIN { printf "%6.1fs  %s\n", now - start, what }'; }

# load NAME loadgen-options...: runs `custodian loadgen` in the background ($loadgen), its report in $data/NAME.json.
load() {
  local name=$1
  shift
  "$bin/custodian" loadgen --server "http://127.0.0.1:$port" --data-dir "$data/.custodian" --report "$data/$name.json" "$@" \
    > "$data/$name.log" 2>&1 &
  loadgen=$!
  start=$(date +%s.%N)
}

# verdict NAME yes|no: prints the run's figures; passes with nothing lost or duplicated, and no error unless allowed.
verdict() {
  python3 - "$data/$1.json" "$1" "$2" <<'PYTHON'
import json, sys
report, name, errors_allowed = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3] == "yes"
total = report["total"]
lost, duplicated = (sum(v[k] for v in report["verification"]) for k in ("lost", "duplicated"))
acknowledged = sum(v["acknowledged"] for v in report["verification"])
print(f"{name}: {total['operations']} requests, {total['throughput']:.1f}/s, p50 {total['p50Milliseconds']:.1f} ms, "
      f"p99 {total['p99Milliseconds']:.1f} ms, {total['errors']} errors {total['failures'] or ''}, "
      f"{acknowledged} acknowledged writes read back: {lost} lost, {duplicated} duplicated")
ok = lost == 0 and duplicated == 0 and (errors_allowed or total["errors"] == 0) and total["operations"] > 0
print(f"{name}: {'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
PYTHON
}

# sql QUERY: one value from the platform's database, as its administrator.
sql() {
  local psql pg_port
  psql=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1)
  pg_port=$(sed -n 4p "$data/.custodian/postgres/postmaster.pid")
  PGPASSWORD=$(cat "$data/.custodian/secrets/postgres-password") "${psql:-psql}" -h 127.0.0.1 -p "$pg_port" \
    -U custodian -d custodian -Atc "$1"
}
