#!/usr/bin/env bash
# What tracing costs (issue 29): throughput with tracing off, at 1 % sampling and at 100 %, side by side in one run.
#
#   Deploy/dev/bench-tracing.sh BIN_DIR [scenario] [--rounds N] [--duration D] [--concurrency N]
#
# BIN_DIR holds the executables of a release build (`swift build -c release --scratch-path .build-release
# --show-bin-path`). One OTLP receiver (Deploy/dev/otlp/receiver.py, counting spans only) runs for the whole run; then
# each round (default 3) starts a platform per setting, alternating them and rotating their order from round to round
# so that a loaded machine weighs on all alike. Each platform runs as bench-ab.sh runs it (`custodian up` on a fresh
# data directory, plain HTTP, rate limits off), with for 1 % and 100 %
#   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:<receiver> OTEL_TRACES_SAMPLER=parentbased_traceidratio
#   OTEL_TRACES_SAMPLER_ARG=0.01 | 1.0
# and none of them for off. The load is `custodian loadgen --scenario <scenario> --concurrency N --duration D
# --no-verify` (scenario: twomes, opensense, vault, lemon, geotag or mixed, the default; 8 clients; 20 s).
#
# It prints each setting's requests a second in every round, their median and its ratio to off's median, the errors,
# and the spans the receiver took while that setting's platforms ran (0 for off; with 1 % about 1 % of 100 %'s). The
# receiver shares the machine with the platform, as a collector on the same host would. Everything is on loopback.
#
# Environment: CUSTODIAN_BENCH_PORT (first platform port, 18480; the settings use it and the next two).
set -uo pipefail
usage() { sed -n 4p "$0" | sed 's/^# *//' >&2; exit 2; }
[ $# -ge 1 ] || usage
bin=$(cd "$1" 2>/dev/null && pwd) || { echo "bench-tracing.sh: no directory $1" >&2; exit 2; }
shift
scenario=mixed rounds=3 duration=20s concurrency=8
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --duration) duration=${2:?--duration needs a duration}; shift 2 ;;
    --concurrency) concurrency=${2:?--concurrency needs a number}; shift 2 ;;
    -*) usage ;;
    *) scenario=$1; shift ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "bench-tracing.sh: --rounds must be from 1 to 99" >&2; exit 2; }
[ -x "$bin/custodian" ] || { echo "bench-tracing.sh: no $bin/custodian" >&2; exit 2; }
cd "$(dirname "$0")/../.."
first_port=${CUSTODIAN_BENCH_PORT:-18480}

# The receiver, in the Python tools' virtual environment (opentelemetry-proto).
source Deploy/dev/python-tools.sh
source Deploy/dev/lib/platform.sh
own_exit_trap=1
work=$(mktemp -d /tmp/custodian-bench-tracing.XXXXXX)
"$tools/python" Deploy/dev/otlp/receiver.py --port 0 --keep 0 > "$work/receiver.out" 2> "$work/receiver.err" &
receiver=$!
cleanup() {
  stop_platform
  [ -n "${data:-}" ] && rm -rf "$data"
  kill "$receiver" 2>/dev/null
  wait "$receiver" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do grep -q '^listening ' "$work/receiver.out" && break; sleep 0.1; done
receiver_port=$(sed -n 's/^listening //p' "$work/receiver.out")
[ -n "$receiver_port" ] || { echo "bench-tracing.sh: the OTLP receiver did not start:" >&2; cat "$work/receiver.err" >&2; exit 1; }
spans() {
  python3 -c 'import json, sys, urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1], timeout=10))["spans"])' \
    "http://127.0.0.1:$receiver_port/stats"
}

# Only this script's settings: an OTEL_ variable of the caller's would change them.
unset $(compgen -e | grep '^OTEL_')
settings=(off 1% 100%)
# setting's index → its sampling ratio (none for off)
ratios=("" 0.01 1.0)

echo "machine: $(nproc) cores, $(uname -r); $scenario, $concurrency clients, $duration a run, $rounds rounds; receiver on port $receiver_port"
for round in $(seq "$rounds"); do
  for step in 0 1 2; do
    index=$(((step + round - 1) % 3))
    setting=${settings[$index]}
    port=$((first_port + index))
    if [ -n "${ratios[$index]}" ]; then
      export OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$receiver_port"
      export OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=${ratios[$index]}
    else
      unset OTEL_EXPORTER_OTLP_ENDPOINT OTEL_TRACES_SAMPLER OTEL_TRACES_SAMPLER_ARG
    fi
    before=$(spans)
    start_platform
    name="round$round-$index"
    load "$name" --scenario "$scenario" --concurrency "$concurrency" --duration "$duration" --clients 16 --no-verify
    wait "$loadgen"
    # Stopped before the spans are counted: a process sends what it still holds when it stops.
    stop_platform
    after=$(spans)
    figures=$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["total"]; print(t["throughput"], t["errors"])' \
      "$data/$name.json" 2>/dev/null) || { echo "round $round, $setting: no report"; tail -5 "$data/$name.log"; figures="0 0"; }
    echo "$setting $round $figures $((after - before))" >> "$work/results"
    printf 'round %d  %-5s %9.1f requests/s  %s errors  %s spans\n' "$round" "$setting" $figures "$((after - before))"
    rm -rf "$data"
    data=""
  done
done

python3 - "$work/results" "$rounds" <<'PYTHON'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
rounds = int(sys.argv[2])
settings = ["off", "1%", "100%"]
figures = {s: [float(r[2]) for r in rows if r[0] == s] for s in settings}
errors = {s: sum(int(r[3]) for r in rows if r[0] == s) for s in settings}
spans = {s: sum(int(r[4]) for r in rows if r[0] == s) for s in settings}
medians = {s: statistics.median(figures[s]) if figures[s] else 0 for s in settings}
print()
print("setting " + "".join(f"{'round ' + str(n + 1):>10}" for n in range(rounds)) + f"{'median':>10}{'vs off':>9}{'errors':>8}{'spans':>10}")
for s in settings:
    ratio = f"{medians[s] / medians['off'] * 100:8.1f}%" if medians["off"] else f"{'-':>9}"
    print(f"{s:<8}" + "".join(f"{value:>10.1f}" for value in figures[s]) + f"{medians[s]:>10.1f}{ratio}{errors[s]:>8}{spans[s]:>10}")
print("\n(requests a second of `custodian loadgen`; spans: what the OTLP receiver took while that setting's platforms ran)")
PYTHON
