#!/usr/bin/env bash
# Builds Custodian for release, starts it on a fresh data directory (plain HTTP, rate limits off: the load comes from
# one address), runs `custodian bench` (arguments are passed on: `bench.sh split-tax --duration 30s`) and stops it.
# The figures in docs/benchmarks.md come from this script on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
./Deploy/dev/install-dependencies.sh
swift build -c release --scratch-path .build-release
binaries=$(swift build -c release --scratch-path .build-release --show-bin-path)
data=$(mktemp -d /tmp/custodian-bench.XXXXXX)
chmod 755 "$data"   # PostgreSQL runs as its own user when this script runs as root
port=${CUSTODIAN_BENCH_PORT:-18480}
CUSTODIAN_RATE_LIMITS=off CUSTODIAN_LOG_LEVEL=warning \
  "$binaries/custodian" up --data-dir "$data/.custodian" --port "$port" --insecure-http --no-demo > "$data/up.log" 2>&1 &
platform=$!
trap 'kill -INT $platform 2>/dev/null; wait $platform 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 120); do grep -q "custodian ready" "$data/up.log" && break; sleep 0.5; done
grep -q "custodian ready" "$data/up.log" || { cat "$data/up.log"; exit 1; }
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r), $(swift --version 2>/dev/null | head -1)"
"$binaries/custodian" bench --server "http://127.0.0.1:$port" --data-dir "$data/.custodian" --report "${CUSTODIAN_BENCH_REPORT:-bench-report.json}" "$@"
