#!/usr/bin/env bash
# CPU per request of the RPC hop, which varies far less from run to run than latency on a shared 2-core machine: for
# each directory of binaries given, starts `custodian up` (plain HTTP, rate limits off, no demo data), sends
# `POST /upload {}` (an OpenSense upload refused 400 by `devices`, no SQL: the split-tax handler of
# docs/benchmarks.md) with wrk at 1 and 16 connections, and prints the gateway's and devices' CPU time per request
# from /proc/PID/stat, with wrk's p50; then the same for the split tax's baseline (`custodian bench-baseline` of the
# first build). Give two builds to compare them side by side, in turns:
#
#   Deploy/dev/cpu-per-request.sh /tmp/old-bin "$(swift build -c release --scratch-path .build-release --show-bin-path)"
#
# Needs wrk (Debian's wrk package).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BIN_DIR [BIN_DIR...]" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }
port=${CPU_PER_REQUEST_PORT:-18490}
lua=$(mktemp /tmp/cpu-per-request.XXXXXX.lua)
printf 'wrk.method = "POST"\nwrk.body = "{}"\nwrk.headers["Content-Type"] = "application/json"\n' > "$lua"
trap 'rm -f "$lua"' EXIT
hz=$(getconf CLK_TCK)
# CPU time (user + system, in clock ticks) a process has used so far.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

measure() {
  local bin=$1 data up gateway devices
  data=$(mktemp -d /tmp/cpu-per-request.XXXXXX)
  chmod 755 "$data"   # PostgreSQL runs as its own user when this script runs as root
  CUSTODIAN_RATE_LIMITS=off CUSTODIAN_LOG_LEVEL=warning \
    "$bin/custodian" up --data-dir "$data/.custodian" --port "$port" --insecure-http --no-demo > "$data/up.log" 2>&1 &
  up=$!
  for _ in $(seq 120); do grep -q "custodian ready" "$data/up.log" && break; sleep 0.5; done
  grep -q "custodian ready" "$data/up.log" || { cat "$data/up.log"; exit 1; }
  pid() { grep -E "^$1 +started" "$data/up.log" | tail -1 | sed -E 's/.*pid ([0-9]+).*/\1/'; }
  gateway=$(pid gateway); devices=$(pid devices)
  wrk -t1 -c1 -d3s -s "$lua" "http://127.0.0.1:$port/upload" > /dev/null   # warm-up
  echo "$bin"
  for connections in 1 16; do
    local g0 d0 out
    g0=$(ticks "$gateway"); d0=$(ticks "$devices")
    out=$(wrk -t1 -c"$connections" -d10s --latency -s "$lua" "http://127.0.0.1:$port/upload")
    awk -v n="$(echo "$out" | awk '/requests in/ {print $1}')" -v p50="$(echo "$out" | awk '$1 == "50%" {print $2}')" \
      -v g=$(( $(ticks "$gateway") - g0 )) -v d=$(( $(ticks "$devices") - d0 )) -v hz="$hz" -v c="$connections" \
      'BEGIN { printf "  %2d connections: %7d requests, p50 %-9s gateway %6.1f µs CPU a request, devices %6.1f µs\n", c, n, p50, g * 1e6 / hz / n, d * 1e6 / hz / n }'
  done
  kill -INT "$up"; wait "$up" 2>/dev/null || true
  rm -rf "$data"
}

# The split tax's baseline, a bare Hummingbird app answering the same request (`custodian bench-baseline`), read the same way.
baseline() {
  local bin=$1 out url pid
  out=$(mktemp /tmp/cpu-per-request.XXXXXX)
  "$bin/custodian" bench-baseline > "$out" &
  pid=$!
  for _ in $(seq 50); do [ -s "$out" ] && break; sleep 0.1; done
  url=$(head -1 "$out")
  wrk -t1 -c1 -d3s -s "$lua" "$url/upload" > /dev/null   # warm-up
  echo "$bin: custodian bench-baseline"
  for connections in 1 16; do
    local b0 result
    b0=$(ticks "$pid")
    result=$(wrk -t1 -c"$connections" -d10s --latency -s "$lua" "$url/upload")
    awk -v n="$(echo "$result" | awk '/requests in/ {print $1}')" -v p50="$(echo "$result" | awk '$1 == "50%" {print $2}')" \
      -v b=$(( $(ticks "$pid") - b0 )) -v hz="$hz" -v c="$connections" \
      'BEGIN { printf "  %2d connections: %7d requests, p50 %-9s bare app %6.1f µs CPU a request\n", c, n, p50, b * 1e6 / hz / n }'
  done
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  rm -f "$out"
}
for round in 1 2; do
  for bin in "$@"; do measure "$bin"; done
done
baseline "$1"
