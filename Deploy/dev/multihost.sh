#!/usr/bin/env bash
# Custodian across hosts, and one host cut off under load.
#
# Builds a small cluster out of Linux network namespaces on this machine (nothing leaves them: no address, route or
# rule is added to the root namespace), runs every process of the platform in it with RPC over tcp:// and mutual
# TLS, puts `custodian loadgen --scenario mixed` on it (twomes, opensense, vault, lemon, geotag: every service is
# called), and in the middle of the load cuts host `sa` off the network for 15 s, then reconnects it.
#
#          ┌────────── namespace <prefix>net: bridge br0, 10.77.0.0/24 ───────────┐
#          │ port-gw          port-sa            port-sb            port-pg       │
#          └────┬───────────────┬──────────────────┬──────────────────┬───────────┘
#               │ veth          │ veth  (cut here) │ veth             │ veth
#     ┌─────────┴────────┐ ┌────┴───────────┐ ┌────┴───────────┐ ┌────┴───────────┐
#     │ gw 10.77.0.1     │ │ sa 10.77.0.2   │ │ sb 10.77.0.3   │ │ pg 10.77.0.4   │
#     │ gateway :8443    │ │ devices :7000  │ │ devices :7000  │ │ PostgreSQL     │
#     │ auth :7001       │ │ vault   :7001  │ │ vault   :7001  │ │   :5432        │
#     │ routes :7002     │ └────────────────┘ └────────────────┘ │ (scram, 200    │
#     │ statistics :7003 │                                       │  connections)  │
#     │ links :7004      │   every RPC: tcp://, mutual TLS with   └────────────────┘
#     │ loadgen, curl    │   the cluster CA from `custodian setup`
#     └──────────────────┘
#
# Each process gets a fixed list of its callees' endpoints (CUSTODIAN_<SERVICE>_ENDPOINTS), its own secrets folder
# from `custodian setup`, and logs to <tmp>/logs/<service>-<host>.log. The gateway's calls end after 3 s
# (CUSTODIAN_SERVICE_TIMEOUT), so a call stuck on the cut-off host ends quickly.
#
# Run (as root, with iproute2 and the PostgreSQL server binaries installed; no build happens here):
#
#     sudo Deploy/dev/multihost.sh [BIN_DIR]        # BIN_DIR or CUSTODIAN_BIN, default .build/debug
#     KEEP=1 Deploy/dev/multihost.sh               # keeps the temporary directory (logs, report) for a look
#     LOAD_SECONDS=45 CUT_AFTER=12 CUT_FOR=15 ...   # the defaults: load length, when sa is cut off, for how long
#
# The 8 executables are copied first, so a rebuild during the run does not disturb it. The whole run takes about
# 70 s on 2 cores (debug build). Everything it made (processes, namespaces, the temporary directory) is removed on exit, whatever the
# outcome.
#
# Pass (exit 0): the load generator read back every acknowledged write (0 lost, 0 duplicated), requests were answered
# 2xx before, during and after the cut, the errors are few (at most 2% of the requests: calls in flight on the
# cut-off host, and calls that probe it while it is ejected, end 504 after 3 s) and are printed by status and by
# phase, and a TLS client without a client certificate gets no RPC answer while one with the gateway's does.
# Printed for a look, not judged: packets sa and sb received per phase, and when sa took traffic again.
# Fail: exit 1. Exit 77 (skipped) when network namespaces cannot be made (not root, or no `ip`).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN_SOURCE=${1:-${CUSTODIAN_BIN:-$ROOT/.build/debug}}
LOAD_SECONDS=${LOAD_SECONDS:-45}
CUT_AFTER=${CUT_AFTER:-12}
CUT_FOR=${CUT_FOR:-15}
SERVICES_ON_GW="auth routes statistics links"
EXECUTABLES="gateway auth vault routes devices statistics links custodian"

P="cmh$$-"                       # prefix of every namespace of this run
NET=${P}net
declare -A IP=([gw]=10.77.0.1 [sa]=10.77.0.2 [sb]=10.77.0.3 [pg]=10.77.0.4)
HOSTS="gw sa sb pg"
declare -A PORT=([devices]=7000 [vault]=7001 [auth]=7001 [routes]=7002 [statistics]=7003 [links]=7004)

say() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { say "FAIL: $*"; exit 1; }
pause() { sleep "$1" & wait $!; }   # a sleep that SIGTERM/SIGINT interrupt at once (the trap runs during `wait`)

# --- can we make namespaces at all? -------------------------------------------------------------------------------
if [[ $(id -u) != 0 ]] || ! command -v ip >/dev/null 2>&1 || ! ip netns add "$NET" 2>/dev/null; then
  echo "skipped: cannot create network namespaces (needs root and iproute2)"
  exit 77
fi
NAMESPACES=("$NET")
TMP=$(mktemp -d /tmp/custodian-multihost.XXXXXX)

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  # This script's own background jobs (the sampler, a sleep), then every process of the run: all live in one of its
  # namespaces (the services, PostgreSQL, the load generator).
  local jobs
  jobs=$(jobs -p)
  [[ -n $jobs ]] && kill $jobs 2>/dev/null
  local ns pids
  for ns in "${NAMESPACES[@]}"; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [[ -n $pids ]] && kill -TERM $pids 2>/dev/null
  done
  for _ in $(seq 30); do
    pids=""
    for ns in "${NAMESPACES[@]}"; do pids+=$(ip netns pids "$ns" 2>/dev/null); done
    [[ -z $pids ]] && break
    sleep 0.2
  done
  for ns in "${NAMESPACES[@]}"; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [[ -n $pids ]] && kill -KILL $pids 2>/dev/null
  done
  wait 2>/dev/null
  for ns in "${NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null; done
  if [[ -n ${KEEP:-} ]]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the binaries -----------------------------------------------------------------------------------------------
BIN=$TMP/bin
mkdir -p "$BIN" "$TMP/logs"
chmod 755 "$TMP"                 # PostgreSQL runs as its own user and needs to reach its directory
for exe in $EXECUTABLES; do
  [[ -x $BIN_SOURCE/$exe ]] || die "$BIN_SOURCE/$exe is missing (build first, or pass the bin directory)"
  cp "$BIN_SOURCE/$exe" "$BIN/$exe" || die "cannot copy $exe"
done
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -n $PGBIN && -x $PGBIN/initdb ]] || PGBIN=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")
[[ -x $PGBIN/initdb && -x $PGBIN/postgres ]] || die "PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin)"
say "binaries from $BIN_SOURCE copied to $BIN; PostgreSQL from $PGBIN; temporary directory $TMP"

# --- the network ------------------------------------------------------------------------------------------------
ip -n "$NET" link set lo up
ip -n "$NET" link add name br0 type bridge
ip -n "$NET" link set dev br0 up
for host in $HOSTS; do
  ns=$P$host
  ip netns add "$ns" || die "cannot create namespace $ns"
  NAMESPACES+=("$ns")
  ip -n "$ns" link set lo up
  # The bridge-side end is port-<host> inside $NET; the host's end is eth0 inside its own namespace.
  ip -n "$NET" link add name "port-$host" type veth peer name eth0 netns "$ns" || die "cannot create the veth of $host"
  ip -n "$NET" link set dev "port-$host" master br0 up
  ip -n "$ns" addr add "${IP[$host]}/24" dev eth0
  ip -n "$ns" link set dev eth0 up
done
on() { local host=$1; shift; ip netns exec "$P$host" "$@"; }
for host in sa sb pg; do
  ok=""
  # No ping needed: a connection to a closed port is refused at once by a host that is reachable.
  for _ in $(seq 30); do
    [[ $(on gw timeout 1 bash -c "echo > /dev/tcp/${IP[$host]}/9" 2>&1) == *refused* ]] && { ok=1; break; }
    sleep 0.2
  done
  [[ -n $ok ]] || die "gw cannot reach $host (${IP[$host]})"
done
say "network: namespaces ${NAMESPACES[*]}; bridge br0 in $NET; gw=${IP[gw]} sa=${IP[sa]} sb=${IP[sb]} pg=${IP[pg]}"

# --- PostgreSQL on pg -------------------------------------------------------------------------------------------
PGDATA=$TMP/pg
PGPASSWORD_TEXT=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
mkdir -p "$PGDATA"
printf '%s\n' "$PGPASSWORD_TEXT" > "$TMP/pgpw"
chown -R postgres:postgres "$PGDATA" "$TMP/pgpw"
chmod 700 "$PGDATA"
runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA" -U postgres --pwfile="$TMP/pgpw" --auth-host=scram-sha-256 \
  --auth-local=peer --encoding=UTF8 --locale=C > "$TMP/logs/initdb.log" 2>&1 || { cat "$TMP/logs/initdb.log"; die "initdb failed"; }
rm -f "$TMP/pgpw"
cat > "$PGDATA/pg_hba.conf" <<EOF
# type  database  user  address          method
host    all       all   10.77.0.0/24     scram-sha-256
EOF
chown postgres:postgres "$PGDATA/pg_hba.conf"
on pg runuser -u postgres -- "$PGBIN/postgres" -D "$PGDATA" -c listen_addresses="${IP[pg]}" -c port=5432 \
  -c unix_socket_directories= -c max_connections=200 -c password_encryption=scram-sha-256 \
  > "$TMP/logs/postgres-pg.log" 2>&1 &
for _ in $(seq 60); do on gw "$PGBIN/pg_isready" -q -h "${IP[pg]}" -p 5432 && break; sleep 0.5; done
on gw "$PGBIN/pg_isready" -q -h "${IP[pg]}" -p 5432 || { tail -20 "$TMP/logs/postgres-pg.log"; die "PostgreSQL did not start"; }
say "postgres: listening on ${IP[pg]}:5432 in ${P}pg"

# --- custodian setup, from gw -----------------------------------------------------------------------------------
SECRETS=$TMP/secrets
on gw env -i PATH="$PATH" HOME="$TMP" "$BIN/custodian" setup \
  --database-url "postgres://postgres:$PGPASSWORD_TEXT@${IP[pg]}:5432/custodian" --secrets-dir "$SECRETS" \
  > "$TMP/logs/setup.log" 2>&1 || { cat "$TMP/logs/setup.log"; die "custodian setup failed"; }
say "setup: secrets in $SECRETS ($(ls -d "$SECRETS"/*/rpc | wc -l) rpc folders)"
ADMIN_TOKEN=$(cat "$SECRETS/admin-token")

# --- the processes ----------------------------------------------------------------------------------------------
endpoints() {   # endpoints SERVICE -> CUSTODIAN_<SERVICE>_ENDPOINTS=...
  local service=$1 list
  case $service in
    devices|vault) list="tcp://${IP[sa]}:${PORT[$service]},tcp://${IP[sb]}:${PORT[$service]}" ;;
    *) list="tcp://${IP[gw]}:${PORT[$service]}" ;;
  esac
  echo "CUSTODIAN_${service^^}_ENDPOINTS=$list"
}
ENV=()
environment() {  # environment HOST PROCESS: fills ENV with what that process reads
  local host=$1 process=$2 folder=$SECRETS/$2 callee
  ENV=(PATH="$PATH" HOME="$TMP" LANG=C.UTF-8
       CUSTODIAN_ENVIRONMENT=production CUSTODIAN_LOG_LEVEL=info
       CUSTODIAN_RUNTIME_DIR="$TMP/run/$host" CUSTODIAN_INSTANCE="$process-$host"
       CUSTODIAN_RPC_TLS_CA_FILE="$folder/rpc/ca.pem"
       CUSTODIAN_RPC_TLS_CERTIFICATE_FILE="$folder/rpc/cert.pem"
       CUSTODIAN_RPC_TLS_KEY_FILE="$folder/rpc/key.pem")
  if [[ $process == gateway ]]; then
    ENV+=(CUSTODIAN_HTTP_HOST="${IP[gw]}" CUSTODIAN_HTTP_PORT=8443
          CUSTODIAN_TLS_CERTIFICATE="$folder/tls/cert.pem" CUSTODIAN_TLS_KEY="$folder/tls/key.pem"
          CUSTODIAN_SERVICE_TIMEOUT=3s CUSTODIAN_RATE_LIMITS=off)
    for callee in auth vault routes devices statistics links; do ENV+=("$(endpoints $callee)"); done
    return
  fi
  ENV+=(CUSTODIAN_LISTEN="tcp://${IP[$host]}:${PORT[$process]}" CUSTODIAN_DATABASE_URL_FILE="$folder/database.url")
  [[ -f $folder/sealing-key ]] && ENV+=(CUSTODIAN_SEALING_KEY_FILE="$folder/sealing-key")
  [[ -f $folder/lemon-keys.json ]] && ENV+=(CUSTODIAN_LEMON_KEYS_FILE="$folder/lemon-keys.json")
  [[ $process == vault || $process == links ]] && ENV+=(CUSTODIAN_PUBLIC_BASE_URL="https://${IP[gw]}:8443")
  case $process in
    auth) ENV+=("$(endpoints vault)" "$(endpoints statistics)") ;;
    devices|vault) ENV+=("$(endpoints links)") ;;
  esac
}
declare -A PID
start() {   # start HOST PROCESS
  local host=$1 process=$2
  mkdir -p "$TMP/run/$host"
  environment "$host" "$process"
  on "$host" env -i "${ENV[@]}" "$BIN/$process" > "$TMP/logs/$process-$host.log" 2>&1 &
  PID[$process-$host]=$!
}
# The replica's own probe (docs/operations.md, "A replica's own probes"), with the replica's environment.
probe() {   # probe HOST PROCESS
  environment "$1" "$2"
  on "$1" env -i "${ENV[@]}" timeout 10 "$BIN/$2" --probe ready
}
# One RPC call over mutual TLS with the gateway's certificate, as the gateway makes it: system.health.
FRAME_JSON='{"jsonrpc":"2.0","id":1,"method":"system.health","params":{}}'
rpc_health() {   # rpc_health HOST PROCESS -> prints the response
  local g=$SECRETS/gateway/rpc
  { printf "\\x00\\x00\\x00\\x$(printf %02x ${#FRAME_JSON})%s" "$FRAME_JSON"; sleep 1; } |
    on gw timeout 5 openssl s_client -quiet -no_ign_eof -connect "${IP[$1]}:${PORT[$2]}" -CAfile "$g/ca.pem" \
      -cert "$g/cert.pem" -key "$g/key.pem" -verify_return_error -verify_hostname "$2" 2>/dev/null | tr -cd '[:print:]'
}

for host in sa sb; do start "$host" devices; start "$host" vault; done
for service in $SERVICES_ON_GW; do start gw "$service"; done
start gw gateway
say "started: ${!PID[*]}"

# Each replica on sa and sb: its own probe, else (see the report) an RPC system.health over mutual TLS.
PROBE_NOTE=""
for host in sa sb; do
  for service in devices vault; do
    ready=""
    for _ in $(seq 60); do
      kill -0 "${PID[$service-$host]}" 2>/dev/null || { tail -20 "$TMP/logs/$service-$host.log"; die "$service-$host exited"; }
      if out=$(probe "$host" "$service" 2>&1); then ready="probe: $out"; break; fi
      health=$(rpc_health "$host" "$service")
      if [[ $health == *'"status":"ok"'* ]]; then
        ready="rpc system.health ok (--probe ready said: $out)"
        PROBE_NOTE="--probe ready failed against a replica that answers system.health over mutual TLS: $out"
        break
      fi
      sleep 1
    done
    [[ -n $ready ]] || { tail -20 "$TMP/logs/$service-$host.log"; die "$service-$host did not become ready: $out"; }
    say "ready: $service-$host at ${IP[$host]}:${PORT[$service]}: $ready"
  done
done

GW_URL="https://${IP[gw]}:8443"
CURL=(on gw curl -sk --max-time 5)
code=""
for _ in $(seq 60); do
  code=$("${CURL[@]}" -o "$TMP/readyz.json" -w '%{http_code}' "$GW_URL/readyz")
  [[ $code == 200 ]] && break
  sleep 1
done
[[ $code == 200 ]] || { cat "$TMP/readyz.json"; echo; tail -5 "$TMP"/logs/*.log; die "gateway not ready within 60 s (last /readyz: $code)"; }
say "ready: gateway $GW_URL/readyz: $(cat "$TMP/readyz.json")"

# --- mutual TLS, for real ---------------------------------------------------------------------------------------
# Without a client certificate: the TLS 1.3 handshake may look done from the client's side, but the server must
# refuse the connection (alert "certificate required") and never answer a call.
MTLS_OK=1
noclient=$({ printf "\\x00\\x00\\x00\\x$(printf %02x ${#FRAME_JSON})%s" "$FRAME_JSON"; sleep 1; } |
  on gw timeout 5 openssl s_client -connect "${IP[sa]}:7000" -CAfile "$SECRETS/gateway/rpc/ca.pem" 2>&1 | tr -cd '[:print:]\n')
if [[ $noclient == *'"result"'* || $noclient == *'"status":"ok"'* ]]; then
  say "mutual TLS without a client certificate: FAIL (the replica answered a call)"; MTLS_OK=""
else
  why=$(grep -oE 'alert (certificate required|handshake failure|bad certificate|unknown ca)|errno=[0-9]+' <<<"$noclient" | sort -u | paste -sd, -)
  say "mutual TLS without a client certificate to devices-sa: PASS (no call answered; the server sent: ${why:-nothing, it closed the connection})"
fi
with=$(rpc_health sa devices)
if [[ $with == *'"status":"ok"'* ]]; then
  say "mutual TLS with the gateway's certificate to devices-sa: PASS (system.health answered)"
else
  say "mutual TLS with the gateway's certificate to devices-sa: FAIL (got: ${with:0:200})"; MTLS_OK=""
fi

# --- the load, and the cut ---------------------------------------------------------------------------------------
metric_totals() {   # 2xx and other answers the gateway gave so far, from /metrics
  "${CURL[@]}" "$GW_URL/metrics" 2>/dev/null | awk '
    /^custodian_http_requests_total\{/ && !/route="\/metrics"/ && !/route="\/readyz"/ {
      match($0, /status="[0-9]+"/); s = substr($0, RSTART + 8, 3); v = $NF
      if (s ~ /^2/) ok += v; else bad += v }
    END { printf "%d %d", ok, bad }'
}
rx() { on "$1" cat /sys/class/net/eth0/statistics/rx_packets 2>/dev/null || echo 0; }
sampler() {   # one line a second: time, sa and sb packets received, gateway 2xx and other answers
  while :; do
    echo "$(date +%s.%N) $(rx sa) $(rx sb) $(metric_totals)"
    sleep 1
  done
}
sampler > "$TMP/samples.txt" &
SAMPLER=$!

REPORT=$TMP/report.json
on gw env -i PATH="$PATH" HOME="$TMP" "$BIN/custodian" loadgen --scenario mixed --concurrency 8 \
  --duration "${LOAD_SECONDS}s" --server "$GW_URL" --ca-file "$SECRETS/gateway/tls/cert.pem" --token "$ADMIN_TOKEN" \
  --report "$REPORT" > "$TMP/logs/loadgen.log" 2>&1 &
LOADGEN=$!
say "loadgen: --scenario mixed --concurrency 8 --duration ${LOAD_SECONDS}s against $GW_URL (set-up first)"
for _ in $(seq 240); do
  grep -q '^load ' "$TMP/logs/loadgen.log" && break
  kill -0 $LOADGEN 2>/dev/null || break
  sleep 0.25
done
grep -q '^load ' "$TMP/logs/loadgen.log" || { cat "$TMP/logs/loadgen.log"; die "the load generator did not start its load"; }
LOAD_START=$(date +%s.%N)
say "load started"
pause "$CUT_AFTER"
CUT_AT=$(date +%s.%N)
ip -n "$NET" link set dev port-sa down
say "CUT: host sa off the bridge (ip -n $NET link set dev port-sa down), $CUT_AFTER s into the load"
pause "$CUT_FOR"
RESTORE_AT=$(date +%s.%N)
ip -n "$NET" link set dev port-sa up
say "RESTORED: host sa back on the bridge after $CUT_FOR s"
# What the gateway's connections to sa look like 2 s later: TCP connections that sent during the cut are in
# retransmission backoff, and what is written to them waits for the next retransmission.
( sleep 2; on gw ss -tin dst "${IP[sa]}" > "$TMP/ss-after-restore.txt" 2>&1 ) &
wait $LOADGEN
LOADGEN_STATUS=$?
LOAD_END=$(date +%s.%N)
sleep 1
kill $SAMPLER 2>/dev/null; wait $SAMPLER 2>/dev/null
say "loadgen exited with $LOADGEN_STATUS (1 whenever any request failed: judged below)"
stuck=$(awk '/^ESTAB/ { queued = $3; peer = $5 }
             /backoff:/ { match($0, /rto:[0-9]+/); rto = substr($0, RSTART + 4, RLENGTH - 4)
                          match($0, /backoff:[0-9]+/); b = substr($0, RSTART + 8, RLENGTH - 8)
                          printf "%s%s (rto %.1f s, backoff %s, %d bytes not sent)", sep, peer, rto / 1000, b, queued; sep = "; " }' \
        "$TMP/ss-after-restore.txt" 2>/dev/null)
say "gateway's connections to sa in TCP retransmission backoff 2 s after reconnecting: ${stuck:-none}"
echo "----- loadgen output -----"
cat "$TMP/logs/loadgen.log"
echo "--------------------------"
[[ -s $REPORT ]] || die "no report written"

# --- who served, what went wrong -------------------------------------------------------------------------------
"${CURL[@]}" "$GW_URL/metrics" > "$TMP/metrics.txt" 2>/dev/null
echo "gateway RPC calls by service and outcome (custodian_rpc_duration_seconds_count):"
awk '/^custodian_rpc_duration_seconds_count\{/ {
       match($0, /service="[a-z]+"/); s = substr($0, RSTART + 9, RLENGTH - 10)
       match($0, /outcome="[a-z]+"/); o = substr($0, RSTART + 9, RLENGTH - 10)
       n[s " " o] += $NF }
     END { for (k in n) printf "  %-22s %d\n", k, n[k] }' "$TMP/metrics.txt" | sort
python3 - "$REPORT" "$TMP/samples.txt" "$LOAD_START" "$CUT_AT" "$RESTORE_AT" "$LOAD_END" "${MTLS_OK:-0}" "$TMP/logs" <<'PY'
import collections, datetime, glob, json, os, sys
report_path, samples_path = sys.argv[1], sys.argv[2]
load_start, cut, restore, load_end = map(float, sys.argv[3:7])
mtls_ok = sys.argv[7] == "1"
logs = sys.argv[8]

def phase_of(t):
    return "before the cut" if t < cut else "sa cut off" if t < restore else "after restoring sa"

# Warnings and errors the processes logged (JSON lines), by process, phase and message.
print("warnings and errors logged (level warning or worse), by process and phase:")
seen = False
for path in sorted(glob.glob(os.path.join(logs, "*-*.log"))):
    name = os.path.basename(path)[:-4]
    counts = collections.Counter()
    for line in open(path, errors="replace"):
        try:
            entry = json.loads(line)
        except ValueError:
            if "crashed" in line or "Fatal error" in line:
                counts[("-", "not JSON: " + line.strip()[:100])] += 1
            continue
        if entry.get("level") not in ("warning", "error", "critical"):
            continue
        t = datetime.datetime.fromisoformat(entry["ts"].replace("Z", "+00:00")).timestamp() if "ts" in entry else load_start
        what = entry.get("message", "?")
        if "error" in entry:
            what += ": " + str(entry["error"])[:110]
        counts[(phase_of(t), what)] += 1
    for (phase, what), n in sorted(counts.items()):
        seen = True
        print(f"  {name:14s} {phase:18s} {n:4d}x {what}")
if not seen:
    print("  none")
r = json.load(open(report_path))
t = r["total"]
ops, errors = t["operations"], t["errors"]
print(f"requests       {ops} in {r['elapsedSeconds']:.1f} s, {t['throughput']:.1f}/s; "
      f"p50 {t['p50Milliseconds']:.1f} ms, p99 {t['p99Milliseconds']:.1f} ms, max {t['maxMilliseconds']:.0f} ms")
print("answers        " + ", ".join(f"{k}: {v}" for k, v in sorted(t["statuses"].items())))
print("no answer      " + (", ".join(f"{v}x {k}" for k, v in t["failures"].items()) or "none"))
print(f"errors         {errors} ({100.0 * errors / max(ops, 1):.2f}% of requests)")
for name, s in sorted(r["scenarios"].items()):
    bad = {k: v for k, v in s["statuses"].items() if not k.startswith("2")}
    print(f"  {name:10s} {s['operations']:6d} requests, {s['errors']:4d} errors {bad or ''} {s['failures'] or ''}")
acknowledged = sum(v["acknowledged"] for v in r["verification"])
lost = sum(v["lost"] for v in r["verification"])
duplicated = sum(v["duplicated"] for v in r["verification"])
for v in r["verification"]:
    print(f"read-back      {v['scenario']}: {v['acknowledged']} acknowledged, {v['found']} found, "
          f"{v['lost']} lost, {v['duplicated']} duplicated" + (f" ({'; '.join(v['notes'])})" if v["notes"] else ""))

# Per phase, from the samples taken every second: packets host sa and sb received, gateway answers (2xx / other).
rows = []
for line in open(samples_path):
    parts = line.split()
    if len(parts) == 5:
        rows.append([float(parts[0])] + [int(x) for x in parts[1:]])
def delta(a, b):
    inside = [row for row in rows if a <= row[0] <= b]
    if len(inside) < 2:
        return None
    first, last = inside[0], inside[-1]
    return [last[i] - first[i] for i in range(1, 5)], last[0] - first[0]
phases = [("before the cut", load_start, cut), ("sa cut off", cut, restore), ("after restoring sa", restore, load_end)]
print("phase               seconds  sa rx packets  sb rx packets  gateway 2xx  gateway other")
healthy = True
phase_ok = {}
for name, a, b in phases:
    d = delta(a, b)
    if d is None:
        print(f"{name:18s}  (no samples)"); healthy = False; continue
    (sa, sb, ok, bad), seconds = d
    phase_ok[name] = (sa, sb, ok, bad, seconds)
    print(f"{name:18s}  {seconds:7.1f}  {sa:13d}  {sb:13d}  {ok:11d}  {bad:13d}")

# The second after the cut, and the time until sa took a real share of traffic again.
recovery = None
for prev, row in zip(rows, rows[1:]):
    if row[0] > restore and row[1] - prev[1] > 50:
        recovery = row[0] - restore
        break
print("sa back in use " + (f"{recovery:.1f} s after it was reconnected (more than 50 packets in a second)" if recovery is not None
                          else "not seen before the load ended"))

problems = []
if lost: problems.append(f"{lost} acknowledged writes lost")
if duplicated: problems.append(f"{duplicated} writes duplicated")
if acknowledged == 0: problems.append("no acknowledged writes")
if ops < 200: problems.append(f"only {ops} requests")
if errors > max(10, ops * 0.02): problems.append(f"{errors} errors, more than 2% of {ops}")
for name in ("before the cut", "sa cut off", "after restoring sa"):
    if name not in phase_ok or phase_ok[name][2] == 0: problems.append(f"no 2xx answers {name}")
if not mtls_ok: problems.append("mutual TLS check failed")
print()
if problems:
    print("RESULT: FAIL: " + "; ".join(problems))
    sys.exit(1)
print(f"RESULT: PASS: {ops} requests, {acknowledged} acknowledged writes read back, 0 lost, 0 duplicated, "
      f"{errors} errors around cutting host sa off for {restore - cut:.0f} s")
PY
verdict=$?
[[ -n $PROBE_NOTE ]] && say "note: $PROBE_NOTE"
exit $verdict
