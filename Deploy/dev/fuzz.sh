#!/usr/bin/env bash
# Property-based fuzzing of the whole HTTP API with schemathesis, against a live platform: starts
# `custodian up --no-demo` on a fresh data directory (plain HTTP, rate limits off: all the load comes from one
# address), makes a credential for every security scheme of the OpenAPI document (Deploy/dev/fuzz/setup.py), and
# runs `schemathesis run` on the document the gateway serves at /openapi.json with the hooks of
# Deploy/dev/fuzz/hooks.py (bearer tokens, a vault login, geotag request signing), in positive and negative mode,
# through the examples, coverage, fuzzing and stateful phases.
#
#   Deploy/dev/fuzz.sh            # CI: about 3 minutes of fuzzing (the debug build in .build/debug: build it first)
#   Deploy/dev/fuzz.sh --long     # operators: 20 minutes, more examples per operation
#   Deploy/dev/fuzz.sh --keep     # then leave the platform up (until Ctrl-C) to replay the printed curl commands
#   FUZZ_TIME=600 FUZZ_MAX_EXAMPLES=100 CUSTODIAN_BIN=.build-release/release Deploy/dev/fuzz.sh
#
# Fails when schemathesis finds a failure (its reproducing curl commands are printed with each), or when the
# supervisor restarted a process during the run (a crash). Ends with a summary.
#
# Environment:
#   CUSTODIAN_BIN       the binaries (.build/debug)
#   FUZZ_PORT           the platform's port (18521)
#   FUZZ_TIME           seconds of testing: schemathesis repeats fuzzing until they are spent (180; --long 1200)
#   FUZZ_MAX_EXAMPLES   test cases per operation and phase round (25; --long 150)
#   FUZZ_WORKERS        concurrent workers (1; 2 is faster on the 2-core machines but can hit a Python 3.11 race)
#   FUZZ_SEED           a schemathesis seed, to repeat a run
#   FUZZ_CHECKS         the checks (default: below); `all` adds the stricter positive_data_acceptance,
#                       negative_data_rejection and missing_required_header, which judge the document's precision
#   FUZZ_SCHEMA         a document file to test with instead of the served /openapi.json (while docs/openapi.yaml is
#                       ahead of the build: e.g. docs/openapi.yaml)
#   FUZZ_REPORT_DIR     keep the reports (schemathesis JSON and JUnit, its output, the platform's logs) there
#
# Why the served /openapi.json: it is the document compiled into this very gateway (Package.swift embeds
# docs/openapi.yaml in GatewayKit), so the binaries are tested against what they claim; docs/openapi.yaml may be ahead
# of (or behind) the build under test.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

long=no keep=no
for arg in "$@"; do
  case $arg in
    --long) long=yes ;;
    --keep) keep=yes ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $arg (--long, --keep, --help)" >&2; exit 2 ;;
  esac
done

bin=${CUSTODIAN_BIN:-.build/debug}
port=${FUZZ_PORT:-18521}
if [ $long = yes ]; then fuzz_time=${FUZZ_TIME:-1200}; max_examples=${FUZZ_MAX_EXAMPLES:-150}
else fuzz_time=${FUZZ_TIME:-180}; max_examples=${FUZZ_MAX_EXAMPLES:-25}; fi
# One worker by default: with two, Python 3.11's AST constructor (used by hypothesis) is not thread-safe and now and
# then fails an operation with "AST constructor recursion depth mismatch", a schemathesis error, not a finding.
workers=${FUZZ_WORKERS:-1}
# What the platform promises: no 5xx; only documented statuses, content types, bodies and headers; credentials
# enforced; a deleted resource stays deleted. (unsupported_method is left out: an undocumented method answers 404 by
# design, docs/README.md; ensure_resource_availability too: a created device is not visible to every account.)
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
checks=$checks,response_headers_conformance,ignored_auth,use_after_free
case ${FUZZ_CHECKS:-} in
  "") ;;
  all) checks=$checks,positive_data_acceptance,negative_data_rejection,missing_required_header ;;
  *) checks=$FUZZ_CHECKS ;;
esac
[ -x "$bin/custodian" ] || { echo "no $bin/custodian: build first (swift build)" >&2; exit 2; }
bin=$(cd "$bin" && pwd)

source Deploy/dev/lib/platform.sh   # stop_platform
source Deploy/dev/python-tools.sh   # $tools: the venv with the pinned schemathesis

tmp=$(mktemp -d /tmp/custodian-fuzz.XXXXXX)
chmod 755 "$tmp"   # PostgreSQL runs as its own user when this script runs as root
platform=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_platform
  if [ -n "${FUZZ_REPORT_DIR:-}" ]; then
    mkdir -p "$FUZZ_REPORT_DIR"
    cp -r "$tmp/report/." "$FUZZ_REPORT_DIR/" 2>/dev/null || true
    cp "$tmp/up.log" "$tmp/schemathesis.log" "$tmp/server-errors.txt" "$FUZZ_REPORT_DIR/" 2>/dev/null || true
    cp -r "$tmp/.custodian/logs" "$FUZZ_REPORT_DIR/" 2>/dev/null || true
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== starting the platform on 127.0.0.1:$port ($bin)"
(cd "$tmp" && CUSTODIAN_RATE_LIMITS=off CUSTODIAN_LOG_LEVEL=warning \
  exec "$bin/custodian" up --data-dir "$tmp/.custodian" --port "$port" --insecure-http --no-demo) > "$tmp/up.log" 2>&1 &
platform=$!
for _ in $(seq 240); do
  grep -q "custodian ready" "$tmp/up.log" && break
  kill -0 "$platform" 2>/dev/null || break
  sleep 0.5
done
grep -q "custodian ready" "$tmp/up.log" || { cat "$tmp/up.log"; echo "fuzz.sh: the platform did not get ready" >&2; exit 1; }
base=http://127.0.0.1:$port
started_lines=$(wc -l < "$tmp/up.log")

echo "== fixtures: a credential for every security scheme"
"$tools/python" Deploy/dev/fuzz/setup.py "$base" "$(cat "$tmp/.custodian/admin-token")" "$tmp"
source "$tmp/fuzz.env"
export FUZZ_BASE_URL=$base FUZZ_ADMIN_TOKEN=$(cat "$tmp/.custodian/admin-token") FUZZ_SERVER_ERRORS=$tmp/server-errors.txt

if [ -n "${FUZZ_SCHEMA:-}" ]; then
  schema=$(cd "$(dirname "$FUZZ_SCHEMA")" && pwd)/$(basename "$FUZZ_SCHEMA")
else
  schema=$tmp/openapi.json
  curl -sf "$base/openapi.json" -o "$schema" || { echo "fuzz.sh: GET /openapi.json failed" >&2; exit 1; }
fi
# The LEMON routes that need an app's access token take sealed bodies made with the handshake's keys, which
# schemathesis cannot make: Tests/IntegrationTests/LemonPlaintextFuzzTests.swift fuzzes them. Their handshake
# (POST /api/v1/devices) and GET /api/v1/keys need no token and stay in.
mapfile -t excluded < <("$tools/python" - "$schema" <<'PYTHON'
import json, sys, yaml
document = yaml.safe_load(open(sys.argv[1]))   # JSON is YAML
for path, item in document.get("paths", {}).items():
    for method, operation in item.items():
        if method not in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
            continue
        security = operation.get("security", document.get("security", []))
        if "lemon" in operation.get("tags", []) and any("accessToken" in requirement for requirement in security):
            print(f"{method.upper()} {path}")
PYTHON
)
exclude_args=()
for name in "${excluded[@]}"; do exclude_args+=(--exclude-name "$name"); done
echo "   left to Swift tests (LEMON, sealed): ${#excluded[@]} operations"

echo "== schemathesis: ${fuzz_time}s, up to $max_examples examples per operation and round, $workers workers"
echo "   checks: $checks"
mkdir -p "$tmp/report"
curl -sf "$base/metrics" > "$tmp/metrics-before.txt" || true   # the requests of startup and setup are not counted
set +e
(cd "$tmp" && SCHEMATHESIS_HOOKS=hooks PYTHONPATH="$repo/Deploy/dev/fuzz" PYTHONDONTWRITEBYTECODE=1 \
  "$tools/schemathesis" --config-file "$tmp/schemathesis.toml" run "$schema" \
    --url "$base" \
    --mode all \
    --checks "$checks" \
    --max-examples "$max_examples" \
    --max-time "$fuzz_time" \
    --workers "$workers" \
    --request-timeout 30 \
    --generation-database none \
    --output-sanitize false \
    --report json,junit --report-dir "$tmp/report" \
    --report-json-path "$tmp/report/schemathesis.json" --report-junit-path "$tmp/report/junit.xml" \
    ${FUZZ_SEED:+--seed "$FUZZ_SEED"} \
    "${exclude_args[@]}") 2>&1 | tee "$tmp/schemathesis.log"
fuzz_status=${PIPESTATUS[0]}
set -e

echo
echo "== verdict"
restarts=$(tail -n +"$((started_lines + 1))" "$tmp/up.log" | grep -E "exited with status|cannot start" || true)
if [ -n "$restarts" ]; then
  echo "The supervisor restarted processes during the run:"
  echo "$restarts" | sed 's/^/   up: /'
  for service in $(echo "$restarts" | awk '{print $1}' | sort -u); do
    log=$tmp/.custodian/logs/$service.log
    [ -f "$log" ] && { echo "   last lines of $service.log:"; tail -n 20 "$log" | sed 's/^/      /'; }
  done
fi
if [ -s "$tmp/server-errors.txt" ]; then
  echo "5xx answers during the run ($(wc -l < "$tmp/server-errors.txt"); the first 20, failures or not: 503 and 504 are documented):"
  head -n 20 "$tmp/server-errors.txt" | cut -c1-400 | sed 's/^/   /'
fi
curl -sf "$base/metrics" > "$tmp/metrics.txt" || true
"$tools/python" - "$tmp/report/schemathesis.json" "$tmp/metrics.txt" "$(printf '%s' "$restarts" | grep -c . || true)" \
  "$tmp/metrics-before.txt" <<'PYTHON'
import json, re, sys
from collections import Counter
report_path, metrics_path, restarts, before_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
try:
    report = json.load(open(report_path))
except (OSError, ValueError):
    report = None
def requests_by_route(path):
    counts = Counter()
    try:
        for line in open(path):
            m = re.match(r'custodian_http_requests_total\{route="([^"]*)",method="([^"]*)",status="(\d+)"\} (\S+)', line)
            if m:
                counts[(m.group(2), m.group(1), m.group(3))] += int(float(m.group(4)))
    except OSError:
        pass
    return counts


during = requests_by_route(metrics_path)
during.subtract(requests_by_route(before_path))
statuses, server_errors = Counter(), Counter()
for (method, route, status), count in during.items():
    if count > 0:
        statuses[status[0] + "xx"] += count
        if status.startswith("5"):
            server_errors[f"{method} {route} {status}"] += count
print("summary")
if report:
    ops, cases = report["operations"], report["test_cases"]
    print(f"   operations     {ops['tested']} tested of {ops['selected']} selected ({ops['total']} in the document)")
    print(f"   test cases     {cases['generated']} generated, {cases['with_failures']} with failures, "
          f"{cases['errored']} errored; {report['running_time']:.0f} s, seed {report['seed']}")
    failures = report.get("failures", [])
    if failures:
        print("   failures by check")
        for f in sorted(failures, key=lambda f: -f["count"]):
            print(f"      {f['count']:4}  {f['code']} {f['title']} ({f['type']}): "
                  + ", ".join(o if isinstance(o, str) else o.get("label", str(o)) for o in f.get("operations", [])[:8]))
    else:
        print("   failures       none")
    if report.get("errors"):
        print(f"   errors         {len(report['errors'])} (schemathesis could not test an operation: see above)")
else:
    print("   (no schemathesis report)")
total = sum(statuses.values())
print(f"   requests       {total} answered by the gateway: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
for key, count in server_errors.most_common():
    print(f"      5xx: {count:4}  {key}")
print(f"   restarts       {restarts}")
PYTHON

status=0
[ "$fuzz_status" -ne 0 ] && { echo "FAIL: schemathesis found failures (exit $fuzz_status): the curl commands above reproduce them"; status=1; }
[ -n "$restarts" ] && { echo "FAIL: processes restarted during the run"; status=1; }
[ $status -eq 0 ] && echo "PASS"
if [ $keep = yes ]; then
  echo "The platform stays up at $base (data $tmp/.custodian) for the curl commands above; Ctrl-C stops it."
  echo "A geotag signature is accepted once and for 300 s: re-sign a replayed /route request (docs/geotag.md)."
  while kill -0 "$platform" 2>/dev/null; do sleep 1; done
fi
exit $status
