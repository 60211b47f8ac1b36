#!/usr/bin/env bash
# Two release builds side by side in one run: `custodian bench` against each in turn, alternated for ROUNDS rounds
# (default 2), each on a fresh data directory, so that a loaded machine weighs on both alike.
#   Deploy/dev/bench-ab.sh DIR_A DIR_B [part …]      # parts: split-tax, batch-writes, ingestion (default: the last two)
# DIR_A and DIR_B hold the executables of a release build (`swift build -c release --show-bin-path`, copied aside), for
# example main and main with one change. The platform runs as bench.sh runs it: plain HTTP, rate limits off.
set -uo pipefail
[ $# -ge 2 ] || { sed -n 2,6p "$0"; exit 2; }
a=$1 b=$2
shift 2
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(batch-writes ingestion)
port=${CUSTODIAN_BENCH_PORT:-18480}
for round in $(seq "${ROUNDS:-2}"); do
  for binaries in "$a" "$b"; do
    data=$(mktemp -d /tmp/custodian-bench.XXXXXX)
    chmod 755 "$data"   # PostgreSQL runs as its own user when this script runs as root
    CUSTODIAN_RATE_LIMITS=off CUSTODIAN_LOG_LEVEL=warning \
      "$binaries/custodian" up --data-dir "$data/.custodian" --port "$port" --insecure-http --no-demo > "$data/up.log" 2>&1 &
    platform=$!
    for _ in $(seq 240); do grep -q "custodian ready" "$data/up.log" && break; sleep 0.5; done
    echo "== round $round: $binaries"
    for part in "${parts[@]}"; do
      "$binaries/custodian" bench "$part" --server "http://127.0.0.1:$port" --data-dir "$data/.custodian" \
        --report "$data/report-$part.json" 2>&1 | grep -E "^(split-tax|batch-writes|ingestion)"
    done
    kill -INT $platform
    wait $platform 2>/dev/null
    rm -rf "$data"
  done
done
