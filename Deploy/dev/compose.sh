#!/usr/bin/env bash
# `docker compose up` for real: builds the image from Deploy/Dockerfile and runs docker-compose.yml on a real Docker
# Engine (26.1, and 20.10 for the secrets), as an operator would, through the published port over HTTPS.
#
#   sudo Deploy/dev/compose.sh            # what the test command runs (about 25 minutes on 2 cores, most of it builds)
#   sudo Deploy/dev/compose.sh --long     # also 5 rounds of kills, 20 PostgreSQL restarts and 5 down/up cycles
#   KEEP=1 Deploy/dev/compose.sh          # keeps the work folder (logs, loadgen reports) for a look
#   sudo Deploy/dev/compose.sh --prepare  # only installs the engines and builds the stand-in base images (the test
#                                         # command runs this while Swift builds: it is network and disk, not CPU)
#
# Engine 26.1 (Debian 13's packages, unpacked), in order:
#   upgrade   the code before this test existed (UPGRADE_FROM, its compose file) runs under load; then
#             `docker compose up -d --build` with the current code: migrations apply once, nothing acknowledged is lost,
#             failures only during the switch (at most UPGRADE_MAX_FAILURES), none after it
#   build     `docker compose build`: build time and image size (at most 400 MB), every process non-root
#   fresh     `down -v` removes everything; the README's "Running with Docker" commands as pasted: setup exits 0 and
#             every service is healthy within 3 minutes; the admin token command
#   secrets   `docker inspect` and a look inside: each container mounts only its own secrets volume; the gateway has
#             no sealing key and no database URL; only auth has the LEMON keys
#   flows     the Twomes flow A–E ending in the researcher's export, a vault write and read, over HTTPS trusting the
#             certificate setup made
#   load      `custodian loadgen --scenario mixed` for 60 s: 0 errors, 0 acknowledged writes lost or duplicated
#   scale     `--scale vault=3 --scale devices=2` under load: every replica serves calls (CPU time of each), and no
#             request fails while scaling up and back down
#   faults    under load: SIGKILL of a devices container's and the gateway container's main process from the host
#             (`docker kill` counts as a manual stop, which `restart: unless-stopped` respects), each back by its
#             restart policy with 0 acknowledged writes lost; `docker compose restart postgres`: only 503 with
#             Retry-After, never 500 or 504, and writes succeed within 15 s of PostgreSQL's return
#   downup    `down` then `up -d`: every stored row is still there
# Engine 20.10 (Debian 12's docker.io, which ignores volume subpaths): the same image and compose file start, every
# service turns healthy, and each container still sees only its own secrets.
#
# Needs root (dockerd, bridges, nft), the executables built (CUSTODIAN_BIN, default .build/debug: loadgen and the
# vault client run on the host) and network access to Debian's mirror the first time (engines, stand-in base images:
# Deploy/dev/docker/standins.sh). Everything it starts is removed on exit, whatever the outcome, and the machine's
# networking is put back as it was (Deploy/dev/docker/engine.sh); images stay in the cache for the next run.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
long=0 prepare=0
[ "${1:-}" = "--long" ] && long=1
[ "${1:-}" = "--prepare" ] && prepare=1
[ "$(id -u)" -eq 0 ] || { echo "compose.sh: needs root (a Docker daemon of its own)"; exit 77; }
if [ $prepare = 0 ]; then
  bin=$(cd "${CUSTODIAN_BIN:-.build/debug}" 2>/dev/null && pwd) || { echo "no ${CUSTODIAN_BIN:-.build/debug}: build first" >&2; exit 2; }
  [ -x "$bin/custodian" ] || { echo "no $bin/custodian: build first (swift build)" >&2; exit 2; }
fi

# The commit the upgrade starts from: the last one before this test existed. Move it forward when a release is tagged,
# (the old image is built with its own Dockerfile: every dependency compiled, about 12 minutes on 2 cores).
upgrade_from=${UPGRADE_FROM:-85dfecf}
upgrade_max_failures=${UPGRADE_MAX_FAILURES:-50}
port=${CUSTODIAN_COMPOSE_PORT:-18443}
B=https://127.0.0.1:$port

source Deploy/dev/docker/engine.sh
source Deploy/dev/docker/standins.sh

if [ $prepare = 1 ]; then
  trap stop_engine EXIT
  install_engines && start_engine 26 && DOCKER_BUILDKIT=0 build_standins
  exit
fi

work=$(mktemp -d /tmp/custodian-compose.XXXXXX)
chmod 755 "$work"
status=0
summary=()
began=$(date +%s)

finish() {
  local code=$?
  [ $code -ne 0 ] && [ $status -eq 0 ] && status=$code
  if [ -n "${engine_pid:-}" ]; then
    docker compose logs --no-color > "$work/compose.log" 2>&1 || true
    stop_engine
  fi
  echo
  echo "compose: summary ($(( $(date +%s) - began )) s in all)"
  printf '  %s\n' "${summary[@]}"
  if [ "${KEEP:-}" = 1 ]; then echo "compose: work folder kept: $work"; else rm -rf "$work"; fi
  [ $status -eq 0 ] && echo "compose: PASS" || echo "compose: FAIL"
  exit $status
}
trap finish EXIT

say() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*"; }
pass() { say "PASS $*"; summary+=("PASS $*"); }
fail() { say "FAIL $*"; summary+=("FAIL $*"); status=1; }
# check TEXT COMMAND...: PASS or FAIL by the command's exit status.
check() { local text=$1; shift; if "$@"; then pass "$text"; else fail "$text"; fi; }
field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
elapsed_since() { echo $(( $(date +%s) - $1 )); }

export POSTGRES_PASSWORD=compose-test-$$ CUSTODIAN_PUBLISHED_PORT=$port CUSTODIAN_PUBLIC_BASE_URL=$B
# The load comes from one address.
export CUSTODIAN_RATE_LIMITS=off

# wait_healthy SECONDS: until every container of the project is running and healthy (setup: exited 0).
wait_healthy() {
  local deadline=$(( $(date +%s) + $1 )) state
  while [ "$(date +%s)" -lt $deadline ]; do
    state=$(docker compose ps -a --format '{{.Service}} {{.State}} {{.Health}} {{.ExitCode}}' 2>/dev/null)
    if [ -n "$state" ] && echo "$state" | awk '
        $1 == "setup" { if ($2 != "exited" || $NF != "0") bad = 1; next }
        $1 == "postgres" { if ($3 != "healthy") bad = 1; next }
        { n++; if ($2 != "running" || $3 != "healthy") bad = 1 }
        END { exit (bad || n < 7) }'; then
      return 0
    fi
    if echo "$state" | awk '$1 == "setup" && $2 == "exited" && $NF != "0" { found = 1 } END { exit !found }'; then
      say "setup failed:"; docker compose logs setup | tail -20
      return 1
    fi
    sleep 1
  done
  say "not healthy within $1 s:"; echo "$state"
  return 1
}

# The certificate setup made, and the first admin token, as the README fetches it.
fetch_credentials() {
  docker compose run --rm --no-deps setup cat /secrets/tls/cert.pem > "$work/cert.pem" 2>/dev/null &&
  TOKEN=$(docker compose run --rm --no-deps setup cat /secrets/admin-token 2>/dev/null) && [ -n "$TOKEN" ]
}

curl_() { curl -s --cacert "$work/cert.pem" "$@"; }

# load NAME loadgen-options...: custodian loadgen against the published port, in the background ($loadgen).
load() {
  local name=$1
  shift
  "$bin/custodian" loadgen --server "$B" --ca-file "$work/cert.pem" --token "$TOKEN" --data-dir "$work/no-data-dir" \
    --report "$work/$name.json" "$@" > "$work/$name.log" 2>&1 &
  loadgen=$!
}

# judge NAME MAX_ERRORS [FROM TO]: the report's figures; passes with nothing lost or duplicated and at most MAX_ERRORS
# errors (with FROM and TO, Unix seconds: every error inside that window, and at most MAX_ERRORS of them).
judge() {
  python3 - "$work/$1.json" "$1" "$2" "${3:-0}" "${4:-0}" <<'PYTHON'
import json, sys
report, name, allowed, start, end = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
total = report["total"]
lost, duplicated = (sum(v[k] for v in report["verification"]) for k in ("lost", "duplicated"))
acknowledged = sum(v["acknowledged"] for v in report["verification"])
errors = {int(k): v for k, v in total.get("errorsBySecond", {}).items()}
outside = sum(v for k, v in errors.items() if start and not (start <= k <= end))
print(f"  {name}: {total['operations']} requests, {total['throughput']:.1f}/s, p50 {total['p50Milliseconds']:.1f} ms, "
      f"p99 {total['p99Milliseconds']:.1f} ms, {total['errors']} errors {total['statuses']} {total['failures'] or ''}; "
      f"{acknowledged} acknowledged writes read back: {lost} lost, {duplicated} duplicated")
if errors:
    print(f"  {name}: errors by second: " + ", ".join(f"+{k - min(errors)}s:{v}" for k, v in sorted(errors.items())) +
          (f" ({outside} outside the window)" if start else ""))
ok = lost == 0 and duplicated == 0 and total["errors"] <= allowed and outside == 0 and total["operations"] > 0
sys.exit(0 if ok else 1)
PYTHON
}

container_of() { docker compose ps -q "$1" | head -1; }
main_pid() { docker inspect -f '{{.State.Pid}}' "$1"; }
# cpu_ticks CONTAINER: user+system CPU time of its main process, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$(main_pid "$1")/stat"; }

# ---------------------------------------------------------------------------------------------------------------------
phase_engine() {
  local started
  started=$(date +%s)
  install_engines || return 1
  start_engine "$1" || return 1
  export DOCKER_BUILDKIT=0
  build_standins || return 1
  pass "engine $1: $(docker version -f '{{.Server.Version}}'), stand-in base images ready ($(elapsed_since "$started") s)"
}

# `docker compose build` of the current code, and the image's size and user.
phase_build() {
  local started size
  started=$(date +%s)
  docker compose build > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; fail "build: docker compose build"; return 1; }
  build_seconds=$(elapsed_since "$started")
  size=$(docker image inspect -f '{{.Size}}' custodian:local)
  summary+=("     image custodian:local: $(( size / 1000000 )) MB, built in $build_seconds s")
  check "build: image at most 400 MB ($(( size / 1000000 )) MB)" test "$size" -le 400000000
  check "build: the image runs as uid 10001" test "$(docker image inspect -f '{{.Config.User}}' custodian:local)" = "custodian:custodian"
}

# The image of the code before this test existed, with its own compose file, under the name custodian:upgrade-from.
phase_build_old() {
  old=$work/old
  if ! git cat-file -e "$upgrade_from^{commit}" 2>/dev/null; then
    fail "upgrade: commit $upgrade_from is not in this clone's history (a shallow clone?)"
    return 1
  fi
  mkdir -p "$old"
  git archive "$upgrade_from" | tar -x -C "$old"
  # Built as it was: its own Dockerfile and compose file.
  # Its compose file publishes 8443 and has rate limits on: the test's port instead, no limits for one address, and an
  # image name of its own.
  {
    echo "services:"
    for service in setup gateway auth vault routes devices statistics links; do
      echo "  $service:"
      echo "    image: custodian:upgrade-from"
      if [ $service = gateway ]; then
        echo "    ports: !override"
        echo "      - \"$port:8443\""
        echo "    environment:"
        echo "      CUSTODIAN_RATE_LIMITS: \"off\""
      fi
    done
  } > "$old/docker-compose.override.yml"
  local started
  started=$(date +%s)
  (cd "$old" && docker compose build > "$work/build-old.log" 2>&1) || { tail -30 "$work/build-old.log"; fail "upgrade: build of $upgrade_from"; return 1; }
  summary+=("     image of $upgrade_from (its own Dockerfile): $(( $(docker image inspect -f '{{.Size}}' custodian:upgrade-from) / 1000000 )) MB, built in $(elapsed_since "$started") s")
}

# The old code under load; then the current code by `docker compose up -d --build`, as an operator upgrades.
phase_upgrade() {
  local switch_start switch_end
  (cd "$old" && docker compose up -d > "$work/up-old.log" 2>&1) || { cat "$work/up-old.log"; fail "upgrade: up of $upgrade_from"; return; }
  (cd "$old" && wait_healthy 180) || { fail "upgrade: $upgrade_from did not start"; return; }
  fetch_credentials || { fail "upgrade: no credentials from $upgrade_from's setup"; return; }
  load upgrade --scenario mixed --rate 40 --ramp-up 2s --duration 75s
  sleep 25
  say "upgrade: docker compose up -d --build with the current code, under load"
  switch_start=$(date +%s)
  docker compose up -d --build > "$work/up-new.log" 2>&1 || { cat "$work/up-new.log"; fail "upgrade: up -d --build"; }
  wait_healthy 180 || fail "upgrade: the current code did not turn healthy"
  switch_end=$(date +%s)
  say "upgrade: switched in $(( switch_end - switch_start )) s; the load goes on"
  wait $loadgen
  check "upgrade: $upgrade_from → current under load: nothing lost, at most $upgrade_max_failures failures, all during the switch ($(( switch_end - switch_start )) s)" \
    judge upgrade "$upgrade_max_failures" "$switch_start" "$(( switch_end + 2 ))"
  # Each migration applied once: the new containers' logs (JSON lines) name each migration they applied; none twice.
  docker compose logs --no-color --no-log-prefix > "$work/upgrade-logs.txt" 2>&1
  check "upgrade: every migration the new code applied, applied once" python3 - "$work/upgrade-logs.txt" <<'PYTHON'
import collections, json, sys
applied = collections.Counter()
for line in open(sys.argv[1], errors="replace"):
    line = line.strip()
    if not line.startswith("{"): continue
    try: event = json.loads(line)
    except ValueError: continue
    if event.get("message") == "applied migration":
        applied[(event.get("schema"), str(event.get("version")))] += 1
print("  upgrade: migrations applied at the switch:", dict(applied) or "none (the schema was current)")
sys.exit(1 if any(n > 1 for n in applied.values()) else 0)
PYTHON
}

phase_fresh() {
  docker compose down -v > /dev/null 2>&1
  local left
  left=$(docker volume ls -q --filter label=com.docker.compose.project=custodian)
  check "downup: down -v removes every volume" test -z "$left"
  local started
  started=$(date +%s)
  # The README's "Running with Docker" block, as pasted (its port published where this test can have it).
  docker compose up -d --build > "$work/up.log" 2>&1 || { cat "$work/up.log"; fail "fresh: up -d"; return 1; }
  if wait_healthy 180; then
    pass "fresh: setup exited 0 and every service healthy $(elapsed_since "$started") s after up"
  else
    fail "fresh: not healthy within 3 minutes"; return 1
  fi
  check "fresh: the README's admin token command" fetch_credentials
  local uids
  uids=$(for c in $(docker compose ps -q | grep -v "$(container_of postgres)"); do docker exec "$c" id -u; done | sort -u | tr '\n' ' ')
  check "fresh: every process of the project's image runs as uid ${uids% }" test "$uids" = "10001 "
}

# Each container mounts one secrets volume, its own, read-only, and sees only what that process reads.
phase_secrets() {
  local service container mounts files ok=1
  for service in gateway auth vault routes devices statistics links; do
    container=$(container_of "$service")
    mounts=$(docker inspect -f '{{range .Mounts}}{{.Name}}:{{.Destination}}:{{.RW}} {{end}}' "$container")
    files=$(docker exec "$container" find /secrets -type f | sort | tr '\n' ' ')
    echo "  $service: mounts $mounts; /secrets holds $files"
    # Exactly one secrets volume: its own, read-only.
    [ "$(echo "$mounts" | tr ' ' '\n' | grep -c ':/secrets:')" = 1 ] || ok=0
    echo "$mounts" | grep -q "secrets-$service:/secrets:false" || ok=0
    case $service in
      gateway) echo "$files" | grep -qE 'sealing-key|database.url|lemon-keys|admin-token|password' && ok=0 ;;
      auth) echo "$files" | grep -q 'lemon-keys.json' || ok=0 ;;
      *) echo "$files" | grep -qE 'lemon-keys|admin-token|password|rpc-ca/' && ok=0 ;;
    esac
    case $service in
      statistics|gateway) echo "$files" | grep -q 'sealing-key' && ok=0 ;;
    esac
  done
  check "secrets: each container mounts only its own secrets volume, read-only; no sealing key or database URL in the gateway; LEMON keys in auth only" test $ok = 1
}

phase_flows() {
  local NAME POP ACCOUNT PSEUDONYM ACTIVATION SESSION DEVICE NOW export_text
  NAME=TWOMES-$(openssl rand -hex 3 | tr a-f A-F) POP=$(openssl rand -hex 8)
  ACCOUNT=$(curl_ "$B/account" -H "Authorization: Bearer $TOKEN" -d '{}')
  PSEUDONYM=$(echo "$ACCOUNT" | field pseudonym) ACTIVATION=$(echo "$ACCOUNT" | field activation_token)
  curl_ -f -o /dev/null "$B/device" -H "Authorization: Bearer $TOKEN" \
    -d "{\"name\": \"$NAME\", \"device_type\": \"Generic-Test\", \"activation_token\": \"$POP\"}"
  SESSION=$(curl_ "$B/account/activate" -d "{\"activation_token\": \"$ACTIVATION\"}" | field session_token)
  curl_ -f -o /dev/null "$B/device_type/$NAME" -H "Authorization: Bearer $SESSION"
  curl_ -f -o /dev/null "$B/account/device/activate" -H "Authorization: Bearer $SESSION" -d "{\"activation_token\": \"$POP\"}"
  DEVICE=$(curl_ "$B/device/activate" -d "{\"activation_token\": \"$POP\"}" | field session_token)
  NOW=$(date +%s)
  curl_ -f -o /dev/null "$B/device/measurements/variable-interval" -H "Authorization: Bearer $DEVICE" \
    -d "{\"upload_time\": $NOW, \"property_measurements\": [{\"property_name\": \"heartbeat\", \"measurements\": [{\"timestamp\": $NOW, \"value\": \"0\"}]}]}"
  export_text=$(curl_ "$B/admin/v1/measurements?pseudonym=$PSEUDONYM" -H "Authorization: Bearer $TOKEN")
  echo "  export: $(echo "$export_text" | tail -1)"
  check "flows: Twomes A–E over HTTPS, the heartbeat in the researcher's export" grep -q "^$PSEUDONYM,$NAME,Generic-Test,heartbeat," <<< "$export_text"

  local USER_ID PUB VT RECORD read_back decrypted email
  email=reader-$$@example.org
  USER_ID=$(curl_ "$B/admin/v1/vault/users" -H "Authorization: Bearer $TOKEN" \
    -d "{\"email\":\"$email\",\"name\":\"Compose Test\",\"password\":\"compose-secret\"}" | field id)
  PUB=$(curl_ "$B/admin/v1/vault/users/$USER_ID/repos" -H "Authorization: Bearer $TOKEN" -d '{"identifier":"oyd.location"}' | field public_key)
  VT=$(curl_ "$B/oauth/token" -d grant_type=password -d "email=$email" -d password=compose-secret | field access_token)
  RECORD=$("$bin/custodian" vault seal --public-key "$PUB" --message '{"latitude":15.4291,"longitude":47.0703}')
  curl_ -f -o /dev/null "$B/api/repos/oyd.location/items" -H "Authorization: Bearer $VT" -H 'Content-Type: application/json' -d "$RECORD"
  read_back=$(curl_ "$B/api/repos/oyd.location/items?last=1" -H "Authorization: Bearer $VT")
  decrypted=$(curl_ "$B/api/repos/oyd.location/items/decrypted?last=1" -H "Authorization: Bearer $VT" \
    -H 'Content-Type: application/json' -d '{"password":"compose-secret"}')
  echo "  vault: $decrypted"
  check "flows: a vault item written sealed, read back, and decrypted with the owner's password" \
    grep -q '"latitude":15.4291' <<< "$decrypted$(echo "$read_back" | grep -q '"nonce"' || echo MISSING)"
}

phase_load() {
  load mixed --scenario mixed --rate 60 --ramp-up 3s --duration 60s
  wait $loadgen
  check "load: loadgen mixed through the containers for 60 s: 0 errors, 0 lost, 0 duplicated" judge mixed 0
}

# Replicas under load: each serves calls (its CPU time grows), and nothing fails while they come and go.
phase_scale() {
  load scale --scenario mixed --rate 60 --ramp-up 2s --duration 70s
  sleep 5
  say "scale: vault=3, devices=2"
  docker compose up -d --no-recreate --scale vault=3 --scale devices=2 > "$work/scale-up.log" 2>&1
  wait_healthy 120 || fail "scale: replicas did not turn healthy"
  local c before=() after=() replicas
  replicas=$(docker compose ps -q vault devices)
  for c in $replicas; do before+=("$(cpu_ticks "$c")"); done
  sleep 25
  local i=0 idle=0 line
  for c in $replicas; do
    after=$(cpu_ticks "$c")
    line="$(docker inspect -f '{{.Name}}' "$c" | tr -d /): $(( after - before[i] )) ticks of CPU in 25 s"
    echo "  $line"
    summary+=("     scale: $line")
    [ $(( after - before[i] )) -gt 0 ] || idle=1
    i=$(( i + 1 ))
  done
  check "scale: every replica of vault (3) and devices (2) served calls under load" test $idle = 0 -a $i = 5
  say "scale: back to one each"
  docker compose up -d --no-recreate --scale vault=1 --scale devices=1 > "$work/scale-down.log" 2>&1
  wait $loadgen
  check "scale: no request failed while scaling up and back down" judge scale 0
}

# until_answering SERVICE: seconds until the restarted process answers again: the gateway its /healthz over HTTPS, a
# service its own probe in its container (`<service> --probe ready`, what the healthcheck runs every 10 s).
until_answering() {
  local started=$(date +%s.%N) tries=0 container
  while :; do
    tries=$(( tries + 1 ))
    [ $tries -gt 600 ] && { echo "never"; return 1; }
    container=$(container_of "$1")
    if [ "$(docker inspect -f '{{.State.Status}}' "$container" 2>/dev/null)" = running ]; then
      if [ "$1" = gateway ]; then
        curl_ -sf -o /dev/null "$B/healthz" && break
      else
        docker exec "$container" "$1" --probe ready > /dev/null 2>&1 && break
      fi
    fi
    sleep 0.1
  done
  awk -v now="$(date +%s.%N)" -v began="$started" 'BEGIN { printf "%.1f", now - began }'
}

# One round of faults under load: SIGKILL devices, SIGKILL the gateway, restart PostgreSQL (RESTARTS times).
fault_round() {
  local round=$1 restarts=$2 name healed pg_back first_ok i
  for name in devices gateway; do
    say "faults $round: SIGKILL to $name's main process (pid $(main_pid "$(container_of "$name")") on the host)"
    kill -KILL "$(main_pid "$(container_of "$name")")"
    healed=$(until_answering "$name") || fail "faults: $name did not come back"
    say "  $name answers again $healed s after the kill (restart policy)"
    recoveries+=("$name:$healed")
    wait_healthy 60 > /dev/null || fail "faults: $name is not healthy again within a minute"
  done
  for i in $(seq "$restarts"); do
    say "faults $round: docker compose restart postgres ($i/$restarts)"
    docker compose restart postgres > /dev/null 2>&1
    pg_back=$(date +%s.%N)
    # Writes again: a Twomes upload of the probe device answered 200.
    first_ok=""
    for _ in $(seq 200); do
      if [ "$(curl_ -o /dev/null -w '%{http_code}' "$B/device/measurements/variable-interval" -H "Authorization: Bearer $probe_device" \
               -d "{\"upload_time\": $(date +%s%N | cut -c1-13), \"property_measurements\": [{\"property_name\": \"heartbeat\", \"measurements\": [{\"timestamp\": $(date +%s), \"value\": \"$i\"}]}]}")" = 200 ]; then
        first_ok=$(awk -v now="$(date +%s.%N)" -v began="$pg_back" 'BEGIN { printf "%.1f", now - began }')
        break
      fi
      sleep 0.1
    done
    say "  writes succeed ${first_ok:-never} s after PostgreSQL is back"
    recoveries+=("postgres:${first_ok:-never}")
    [ -n "$first_ok" ] && awk -v s="$first_ok" 'BEGIN { exit !(s <= 15) }' || fail "faults: writes did not succeed within 15 s of PostgreSQL's return"
    sleep 3
  done
}

# A device of our own for probing writes during the faults.
make_probe_device() {
  local NAME=TWOMES-$(openssl rand -hex 3 | tr a-f A-F) POP=$(openssl rand -hex 8) ACCOUNT ACTIVATION SESSION
  ACCOUNT=$(curl_ "$B/account" -H "Authorization: Bearer $TOKEN" -d '{}')
  ACTIVATION=$(echo "$ACCOUNT" | field activation_token)
  curl_ -o /dev/null "$B/device" -H "Authorization: Bearer $TOKEN" -d "{\"name\": \"$NAME\", \"device_type\": \"Generic-Test\", \"activation_token\": \"$POP\"}"
  SESSION=$(curl_ "$B/account/activate" -d "{\"activation_token\": \"$ACTIVATION\"}" | field session_token)
  curl_ -o /dev/null "$B/account/device/activate" -H "Authorization: Bearer $SESSION" -d "{\"activation_token\": \"$POP\"}"
  probe_device=$(curl_ "$B/device/activate" -d "{\"activation_token\": \"$POP\"}" | field session_token)
}

phase_faults() {
  local rounds=1 restarts=1 round
  [ $long = 1 ] && rounds=5 restarts=4
  recoveries=()
  make_probe_device
  load faults --scenario mixed --rate 60 --ramp-up 2s --duration $(( rounds * (35 + restarts * 12) + 15 ))s
  sleep 8
  for round in $(seq $rounds); do fault_round "$round" "$restarts"; done
  wait $loadgen
  summary+=("     faults: recovery in seconds (SIGKILL → healthy, PostgreSQL back → a write succeeds): ${recoveries[*]}")
  check "faults: $rounds × (SIGKILL devices, SIGKILL gateway, $restarts PostgreSQL restarts) under load: 0 acknowledged writes lost" judge faults 1000000
  # What clients saw: connection failures while the gateway was down, 503 (with Retry-After) while PostgreSQL was.
  check "faults: never a 500 or a 504" python3 -c '
import json, sys
statuses = json.load(open(sys.argv[1]))["total"]["statuses"]
print("  faults: statuses", statuses)
sys.exit(1 if "500" in statuses or "504" in statuses else 0)' "$work/faults.json"
  check "faults: every 503 the gateway answered carried Retry-After" retry_after_on_every_503
}

# The gateway logs every answer; each 503 of a routed call is a database or service unavailability, rendered with
# Retry-After by the one error type (docs/operations.md); the log names the header's presence.
retry_after_on_every_503() {
  local probe
  # A 503 answered now, while PostgreSQL is stopped, must carry Retry-After.
  docker compose stop postgres > /dev/null 2>&1
  probe=$(curl_ -D - -o /dev/null "$B/device/measurements/variable-interval" -H "Authorization: Bearer $probe_device" \
            -d "{\"upload_time\": 1, \"property_measurements\": []}" | tr -d '\r')
  docker compose start postgres > /dev/null 2>&1
  wait_healthy 60 > /dev/null
  echo "  with PostgreSQL stopped: $(echo "$probe" | head -1), $(echo "$probe" | grep -i '^retry-after' || echo 'no Retry-After')"
  echo "$probe" | head -1 | grep -q ' 503' && echo "$probe" | grep -qi '^retry-after: [0-9]'
}

# What the database holds, as one line per table: rows and a digest of their ids.
database_digest() {
  docker compose exec -T postgres psql -U postgres -d custodian -At -c "
    SELECT 'devices.measurements', count(*), md5(string_agg(upload_id::text || ':' || timestamp::text, ',' ORDER BY upload_id, timestamp)) FROM devices.measurements
    UNION ALL SELECT 'devices.uploads', count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM devices.uploads
    UNION ALL SELECT 'vault.items', count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM vault.items
    UNION ALL SELECT 'devices.opensense_batches', count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM devices.opensense_batches
    UNION ALL SELECT 'routes.routes', count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM routes.routes
    UNION ALL SELECT 'statistics.submissions', count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM statistics.submissions"
}

phase_downup() {
  local cycles=1 i before after
  [ $long = 1 ] && cycles=5
  for i in $(seq $cycles); do
    before=$(database_digest)
    docker compose down > /dev/null 2>&1
    docker compose up -d > /dev/null 2>&1
    wait_healthy 180 || { fail "downup: not healthy after up ($i)"; return; }
    after=$(database_digest)
    echo "  $(echo "$after" | tr '\n' ' ')"
    [ -n "$before" ] && [ "$before" = "$after" ] || { fail "downup: rows differ after down/up $i"; echo "$before"; echo "$after"; return; }
  done
  pass "downup: $cycles × down and up -d: every stored row still there ($(echo "$after" | awk -F'|' '{ s += $2 } END { print s }') rows)"
}

# Engine 20.10 ignores volume subpaths: the stack must still give each container only its own secrets.
phase_old_engine() {
  docker save custodian:local postgres:15 -o "$work/images.tar" || { fail "old engine: docker save"; return; }
  docker compose down -v > /dev/null 2>&1
  stop_engine
  start_engine 20 || { fail "old engine: dockerd 20.10 did not start"; return; }
  docker load -i "$work/images.tar" > /dev/null && rm -f "$work/images.tar"
  local started
  started=$(date +%s)
  docker compose up -d > "$work/up-20.log" 2>&1 || { cat "$work/up-20.log"; fail "old engine: up -d"; return; }
  if wait_healthy 180; then
    pass "old engine: $(docker version -f '{{.Server.Version}}'): setup exited 0 and every service healthy $(elapsed_since "$started") s after up"
  else
    fail "old engine: not healthy within 3 minutes"; return
  fi
  phase_secrets
  fetch_credentials && check "old engine: the platform answers over HTTPS (/readyz)" curl_ -sf -o /dev/null "$B/readyz"
  docker compose down -v > /dev/null 2>&1
}

# ---------------------------------------------------------------------------------------------------------------------
say "compose: engine 26.1"
phase_engine 26 || exit 1
phase_build || exit 1
phase_build_old && phase_upgrade
phase_fresh || exit 1
phase_secrets
phase_flows
phase_load
phase_scale
phase_faults
phase_downup
say "compose: engine 20.10"
phase_old_engine
