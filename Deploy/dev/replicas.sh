#!/usr/bin/env bash
# Measures what replicas buy on this machine: for each replica count (default "1 3"), starts Custodian for release on a
# fresh data directory with that many replicas of `devices` and `vault` (plain HTTP, rate limits off: the load comes
# from one address), runs `custodian loadgen` with the twomes and the vault scenario (closed model, 32 clients, 30 s
# each; `LOADGEN_ARGS` replaces those options), prints the tables, and stops it. The figures in docs/operations.md
# ("Replicas") come from this script on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
./Deploy/dev/install-dependencies.sh
swift build -c release --scratch-path .build-release
binaries=$(swift build -c release --scratch-path .build-release --show-bin-path)
port=${CUSTODIAN_BENCH_PORT:-18481}
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r), $(swift --version 2>/dev/null | head -1)"
for count in ${REPLICA_COUNTS:-1 3}; do
  data=$(mktemp -d /tmp/custodian-replicas.XXXXXX)
  chmod 755 "$data"   # PostgreSQL runs as its own user when this script runs as root
  CUSTODIAN_RATE_LIMITS=off CUSTODIAN_LOG_LEVEL=warning \
    "$binaries/custodian" up --data-dir "$data/.custodian" --port "$port" --insecure-http --no-demo \
    --replicas "devices=$count,vault=$count" > "$data/up.log" 2>&1 &
  platform=$!
  trap 'kill -INT $platform 2>/dev/null; wait $platform 2>/dev/null; rm -rf "$data"' EXIT
  for _ in $(seq 120); do grep -q "custodian ready" "$data/up.log" && break; sleep 0.5; done
  grep -q "custodian ready" "$data/up.log" || { cat "$data/up.log"; exit 1; }
  for scenario in twomes vault; do
    echo "== $count replica(s) of devices and vault: $scenario"
    # shellcheck disable=SC2086
    "$binaries/custodian" loadgen --scenario "$scenario" ${LOADGEN_ARGS:---concurrency 32 --duration 30s} \
      --server "http://127.0.0.1:$port" --data-dir "$data/.custodian" | grep -v '^ *[0-9]*s '
  done
  psql=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1)
  pg_port=$(sed -n 4p "$data/.custodian/postgres/postmaster.pid")
  connections=$(PGPASSWORD=$(cat "$data/.custodian/secrets/postgres-password") "${psql:-psql}" -h 127.0.0.1 -p "$pg_port" \
    -U custodian -d custodian -Atc "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")
  echo "== PostgreSQL client connections with $count replica(s) of devices and vault, after the load: $connections"
  kill -INT $platform; wait $platform 2>/dev/null || true
  rm -rf "$data"
  trap - EXIT
done
