#!/usr/bin/env bash
# Faults under load: starts Custodian on a fresh data directory, runs `custodian loadgen --scenario mixed` at a fixed
# rate, and meanwhile kills every service and the gateway with SIGKILL (the supervisor of `custodian up` starts each
# again) and restarts PostgreSQL once. At the end loadgen reads every acknowledged write back: the run passes with
# 0 lost, 0 duplicated and 0 half-written (a Twomes upload stored without its measurements), and prints how long each
# fault took to heal and what the clients saw meanwhile (statuses, refused connections).
#
#   Deploy/dev/chaos.sh              # the short run the test command makes (one kill of each, ~1.5 minutes)
#   Deploy/dev/chaos.sh --long       # five rounds of kills and a PostgreSQL restart in each (~10 minutes)
#   CUSTODIAN_BIN=.build-release/release CHAOS_RATE=200 Deploy/dev/chaos.sh --long
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${CUSTODIAN_BIN:-.build/debug}
rate=${CHAOS_RATE:-60}
port=${CUSTODIAN_CHAOS_PORT:-18492}
rounds=1
[ "${1:-}" = "--long" ] && rounds=5
[ -x "$bin/custodian" ] || { echo "no $bin/custodian: build first (swift build)" >&2; exit 2; }
services=(auth vault routes devices statistics links gateway)
gap=6   # seconds between faults: long enough for each to heal before the next
# The load lasts the faults' time and 10 s more, so that the last recovery happens under load.
duration=$(( rounds * (${#services[@]} + 1) * gap + 14 ))

source Deploy/dev/lib/platform.sh
start_platform

# until_ready NAME: seconds until NAME answers again (a service its probe, the gateway /healthz, PostgreSQL /readyz).
until_ready() {
  local began check
  began=$(date +%s.%N)
  case $1 in
    gateway)    check() { curl -sf -o /dev/null "http://127.0.0.1:$port/healthz"; } ;;
    postgresql) check() { curl -sf -o /dev/null "http://127.0.0.1:$port/readyz"; } ;;
    *)          check() { CUSTODIAN_RUNTIME_DIR="$data/.custodian/run" CUSTODIAN_INSTANCE="$1" "$bin/$1" --probe ready >/dev/null 2>&1; } ;;
  esac
  for _ in $(seq 300); do
    if check "$1"; then
      awk -v now="$(date +%s.%N)" -v began="$began" 'BEGIN { printf "%.1f", now - began }'
      return 0
    fi
    sleep 0.1
  done
  echo "not within 30 s"
  return 1
}

echo "== $rounds round(s): SIGKILL to each of ${services[*]}, and a PostgreSQL restart, under $rate requests/s for ${duration}s"
load chaos --scenario mixed --rate "$rate" --ramp-up 2s --duration "${duration}s"
status=0
recoveries=()
pg_ctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)
as_postgres=()
[ "$(id -u)" -eq 0 ] && as_postgres=(runuser -u postgres --)
for round in $(seq "$rounds"); do
  for name in "${services[@]}"; do
    sleep "$gap"
    say "round $round: kill -9 $name (pid $(pid_of "$name"))"
    kill -KILL "$(pid_of "$name")"
    sleep 0.2   # the supervisor notices the exit, then waits its restart delay (1 s)
    healed=$(until_ready "$name") || status=1
    say "  $name answers again after $healed s"
    recoveries+=("$name $healed")
  done
  sleep "$gap"
  say "round $round: PostgreSQL restarted"
  "${as_postgres[@]}" "$pg_ctl" -D "$data/.custodian/postgres" -m fast -w restart -l "$data/.custodian/postgres/server.log" >/dev/null
  healed=$(until_ready postgresql) || status=1
  say "  every service reaches PostgreSQL again after $healed s"
  recoveries+=("postgresql $healed")
done
say "faults done; waiting for the load to end"
wait $loadgen || true

verdict chaos yes || status=1
half=$(sql "SELECT count(*) FROM devices.uploads u WHERE NOT EXISTS (SELECT 1 FROM devices.measurements m WHERE m.upload_id = u.id)")
echo "chaos: $half Twomes uploads stored without their measurements (half-written)"
[ "$half" = "0" ] || status=1
echo "chaos: recovery in seconds (kill or restart → answering again):"
printf '   %s\n' "${recoveries[@]}" | sort | awk '{ a[$1] = a[$1] " " $2 } END { for (n in a) printf "   %-11s%s\n", n, a[n] }' | sort
echo "chaos: what the clients saw (loadgen's failures by kind):"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["total"]; print("  ", r["statuses"], r["failures"] or "no failures")' "$data/chaos.json"
[ $status -eq 0 ] && echo "chaos: PASS" || echo "chaos: FAIL"
exit $status
