#!/usr/bin/env bash
# A 300-household Twomes study with a year of heartbeats, loaded into a running `custodian up` database, then the
# plans and times of the researchers' study routes (docs/admin.md, "Researcher routes"; issue 28):
#   GET /admin/v1/accounts/{pseudonym}, GET /admin/v1/devices/{device_name}, GET /admin/v1/devices (sorted by name and by
#   last reading, with heartbeats_24h) and GET /admin/v1/devices?silent_for=2h; then the console's pages over them
#   (participant, device, silent devices, lists), logged in with the admin token.
#
#   ./Deploy/dev/console-scale.sh [--data-dir .custodian] [--server https://127.0.0.1:8443] [--keep]
#
# 300 accounts (pseudonyms 850000–850299), each with a building and a Generic-Test device TWOMES-5C0000…TWOMES-5C012B
# attached; a heartbeat every 600 s for the last 365 days (52 560 a device, 15.8 M in all), one upload an hour; every
# 30th device stopped three hours ago (silent). Readings are made in SQL with generate_series, one month at a time, each
# month's partition created first; then VACUUM ANALYZE. The data is marked as an ordinary study's (not synthetic, so the
# lists show it); `--keep` leaves it, otherwise it is deleted at the end. Loading takes minutes on a small machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
data_dir=.custodian
server=https://127.0.0.1:8443
keep=no
while [ $# -gt 0 ]; do
  case $1 in
    --data-dir) data_dir=$2; shift 2 ;;
    --server) server=$2; shift 2 ;;
    --keep) keep=yes; shift ;;
    *) echo "usage: $0 [--data-dir DIR] [--server URL] [--keep]" >&2; exit 2 ;;
  esac
done
[ -f "$data_dir/postgres/postmaster.pid" ] || { echo "$0: no running custodian up database in $data_dir" >&2; exit 1; }
psql_bin=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1)
pg_port=$(sed -n 4p "$data_dir/postgres/postmaster.pid")
export PGPASSWORD
PGPASSWORD=$(cat "$data_dir/secrets/postgres-password")
token=$(cat "$data_dir/admin-token")
sql() { "${psql_bin:-psql}" -h 127.0.0.1 -p "$pg_port" -U custodian -d custodian -v ON_ERROR_STOP=1 -At "$@"; }

if [ "$(sql -c "SELECT count(*) FROM devices.devices WHERE name = 'TWOMES-5C0000'")" = 0 ]; then
  echo "== loading 300 accounts and devices"
  sql <<'SQL'
BEGIN;
INSERT INTO devices.accounts (pseudonym, activation_token_hash, activation_expires_at, activated_on, created_on)
SELECT 850000 + i, sha256(('scale-account-' || i)::bytea), now() - interval '350 days', now() - interval '366 days', now() - interval '367 days'
FROM generate_series(0, 299) i;
INSERT INTO devices.buildings (account_id, latitude, longitude, tz_name)
SELECT id, 52.51, 6.10, 'Europe/Amsterdam' FROM devices.accounts WHERE pseudonym BETWEEN 850000 AND 850299;
INSERT INTO devices.devices (name, device_type_id, activation_token_hash, building_id, created_on, activated_on)
SELECT 'TWOMES-' || upper(to_hex(x'5C0000'::int + a.pseudonym - 850000)), (SELECT id FROM devices.device_types WHERE name = 'Generic-Test'),
       sha256(('scale-device-' || a.pseudonym)::bytea), b.id, now() - interval '367 days', now() - interval '366 days'
FROM devices.accounts a JOIN devices.buildings b ON b.account_id = a.id WHERE a.pseudonym BETWEEN 850000 AND 850299;
COMMIT;
SQL
  # The year's monthly partitions first, each in a transaction of its own: attaching one locks the measurements (and the
  # devices they reference) until its transaction ends, which must not be the month's long insert.
  sql -c "SELECT devices.create_measurement_partition((date_trunc('month', now() AT TIME ZONE 'UTC') - m * interval '1 month')::date)
          FROM generate_series(0, 12) m" > /dev/null
  for month in $(seq 12 -1 0); do
    start=$(date +%s)
    # One month (UTC) of the year: its hourly uploads, its heartbeats.
    sql -v month="$month" <<'SQL'
\set ON_ERROR_STOP 1
BEGIN;
CREATE TEMP TABLE span ON COMMIT DROP AS
SELECT greatest(now() - interval '365 days', (date_trunc('month', now() AT TIME ZONE 'UTC') - :month * interval '1 month') AT TIME ZONE 'UTC') AS first,
       least(now(), (date_trunc('month', now() AT TIME ZONE 'UTC') - (:month - 1) * interval '1 month') AT TIME ZONE 'UTC') AS last;
CREATE TEMP TABLE scale ON COMMIT DROP AS
SELECT d.id, d.building_id, p.id AS property,
       CASE WHEN (a.pseudonym - 850000) % 30 = 0 THEN now() - interval '3 hours' ELSE now() END AS stopped
FROM devices.devices d JOIN devices.buildings b ON b.id = d.building_id JOIN devices.accounts a ON a.id = b.account_id
JOIN devices.properties p ON p.device_type_id = d.device_type_id AND p.name = 'heartbeat'
WHERE a.pseudonym BETWEEN 850000 AND 850299;
CREATE TEMP TABLE month_uploads ON COMMIT DROP AS
WITH made AS (
  INSERT INTO devices.uploads (device_id, body_sha256, server_time, device_time, size, building_id)
  SELECT s.id, sha256((s.id || ':' || h)::text::bytea), h, h, 2048, s.building_id
  FROM scale s, span, generate_series(date_trunc('hour', span.first) + interval '1 hour', span.last, interval '1 hour') h
  WHERE h <= s.stopped
  RETURNING device_id, id)
SELECT device_id, min(id) AS id FROM made GROUP BY device_id;
INSERT INTO devices.measurements (device_id, property_id, timestamp, value, upload_id, building_id)
SELECT s.id, s.property, t, '1', coalesce(u.id, 0), s.building_id
FROM scale s LEFT JOIN month_uploads u ON u.device_id = s.id, span,
     generate_series(to_timestamp(ceil(extract(epoch FROM span.first) / 600) * 600), span.last, interval '600 seconds') t
WHERE t < span.last AND t <= s.stopped;
COMMIT;
SQL
    echo "   month -$month loaded in $(($(date +%s) - start)) s"
  done
  echo "== VACUUM ANALYZE"
  sql -c "VACUUM ANALYZE devices.measurements" -c "VACUUM ANALYZE devices.uploads" -c "VACUUM ANALYZE devices.devices" \
    -c "VACUUM ANALYZE devices.accounts"
fi
sql -c "SELECT 'readings: ' || count(*) FROM devices.measurements m JOIN devices.devices d ON d.id = m.device_id WHERE d.name LIKE 'TWOMES-5C%'"

# The routes' statements, as the service sends them (parameters in place), with their plans.
explain() {
  echo "== EXPLAIN (ANALYZE, BUFFERS): $1"
  sql -c "EXPLAIN (ANALYZE, BUFFERS) $2"
}
device_id=$(sql -c "SELECT id FROM devices.devices WHERE name = 'TWOMES-5C0001'")
heartbeat=$(sql -c "SELECT p.id FROM devices.devices d JOIN devices.properties p ON p.device_type_id = d.device_type_id AND p.name = 'heartbeat' WHERE d.name = 'TWOMES-5C0001'")
window="(now() AT TIME ZONE 'UTC')::date - 29"
explain "device page: heartbeats a day, last 30 days" "
SELECT to_char((m.timestamp AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD'), count(*)::int FROM devices.measurements m
WHERE m.device_id = $device_id AND m.property_id = $heartbeat
  AND m.timestamp >= '$(sql -c "SELECT ($window)::timestamp AT TIME ZONE 'UTC'")' AND m.timestamp < '$(sql -c "SELECT ((now() AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC'")'
GROUP BY 1 ORDER BY 1"
explain "device page: attachments" "
SELECT a.pseudonym, min(u.server_time), max(u.server_time), count(*)::int FROM devices.uploads u
LEFT JOIN devices.buildings b ON b.id = u.building_id LEFT JOIN devices.accounts a ON a.id = b.account_id
WHERE u.device_id = $device_id GROUP BY u.building_id, a.pseudonym ORDER BY min(u.server_time)"
explain "device page: latest readings" "
SELECT p.name, p.unit, l.value, l.timestamp FROM devices.properties p CROSS JOIN LATERAL (
  SELECT m.value, m.timestamp FROM devices.measurements m WHERE m.device_id = $device_id AND m.property_id = p.id ORDER BY m.timestamp DESC LIMIT 1) l
WHERE p.device_type_id = (SELECT device_type_id FROM devices.devices WHERE id = $device_id) ORDER BY p.name"
account_devices=$(sql -c "SELECT string_agg(d.id::text, ',') FROM devices.devices d JOIN devices.buildings b ON b.id = d.building_id
                          JOIN devices.accounts a ON a.id = b.account_id WHERE a.pseudonym = 850001")
building=$(sql -c "SELECT b.id FROM devices.buildings b JOIN devices.accounts a ON a.id = b.account_id WHERE a.pseudonym = 850001")
explain "participant page: its devices" "
WITH building AS (SELECT b.id FROM devices.accounts a JOIN devices.buildings b ON b.account_id = a.id WHERE a.pseudonym = 850001)
SELECT (SELECT id FROM building), d.id FROM devices.devices d WHERE d.building_id = (SELECT id FROM building)
   OR EXISTS (SELECT 1 FROM devices.uploads u WHERE u.device_id = d.id AND u.building_id = (SELECT id FROM building))"
explain "participant page: readings a day per property, last 30 days" "
SELECT to_char((m.timestamp AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD'), p.name, count(*)
FROM devices.measurements m JOIN devices.properties p ON p.id = m.property_id
WHERE m.device_id = ANY('{$account_devices}'::bigint[]) AND m.building_id = $building
  AND m.timestamp >= '$(sql -c "SELECT ($window)::timestamp AT TIME ZONE 'UTC'")' AND m.timestamp < '$(sql -c "SELECT ((now() AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC'")'
GROUP BY 1, 2 ORDER BY 1, 2"
list_sql() { # $1: silent condition, $2: by name (true/false)
  cat <<SQL
WITH filtered AS (
  SELECT d.id, d.name, t.name AS type, a.pseudonym, d.created_on, d.activated_on, d.label_printed_on, p.id AS heartbeat
  FROM devices.devices d JOIN devices.device_types t ON t.id = d.device_type_id
  LEFT JOIN devices.properties p ON p.device_type_id = d.device_type_id AND p.name = 'heartbeat'
  LEFT JOIN devices.buildings b ON b.id = d.building_id LEFT JOIN devices.accounts a ON a.id = b.account_id
  WHERE (NOT $2 OR d.name > '') AND NOT d.synthetic AND $1
  ORDER BY d.name LIMIT $( [ "$2" = true ] && echo 100 || echo NULL)),
seen AS (SELECT f.*, (SELECT max(m.timestamp) FROM devices.measurements m WHERE m.device_id = f.id) AS last_seen FROM filtered f)
SELECT s.name, s.last_seen, CASE WHEN s.heartbeat IS NOT NULL THEN (SELECT count(*) FROM devices.measurements m
  WHERE m.device_id = s.id AND m.property_id = s.heartbeat AND m.timestamp >= now() - interval '24 hours')::int END
FROM seen s ORDER BY CASE WHEN $2 THEN s.name END, s.last_seen ASC NULLS FIRST, s.name LIMIT 100
SQL
}
explain "device list: first page by name, with heartbeats_24h" "$(list_sql true true)"
explain "silent list: silent_for=2h" "$(list_sql "(d.building_id IS NOT NULL AND d.activated_on IS NOT NULL AND NOT ((SELECT 1 FROM devices.measurements r WHERE r.device_id = d.id AND r.timestamp >= now() - interval '7200 seconds' LIMIT 1) IS NOT NULL))" false)"

echo "== the routes, timed with curl (each 5 times: seconds to the last byte)"
time_route() {
  local times=""
  for _ in 1 2 3 4 5; do
    times+=" $(curl -sk -o /dev/null -w '%{time_total}' "$server$1" -H "Authorization: Bearer $token")"
  done
  local status
  status=$(curl -sk -o /dev/null -w '%{http_code}' "$server$1" -H "Authorization: Bearer $token")
  echo "   $1 → $status:$times"
}
time_route "/admin/v1/accounts/850001"
time_route "/admin/v1/accounts/850001?days=366"
time_route "/admin/v1/devices/TWOMES-5C0001"
time_route "/admin/v1/devices/TWOMES-5C0001?days=366"
time_route "/admin/v1/devices?limit=100"
time_route "/admin/v1/devices?limit=300&q=TWOMES-5C"
time_route "/admin/v1/devices?sort=last_seen&limit=100"
time_route "/admin/v1/devices?silent_for=2h"
time_route "/admin/v1/accounts?q=8500&limit=100"
# The console's pages for the same study, as a researcher's browser gets them (logged in with the admin token).
echo "== the console's pages, timed with curl (each 5 times: seconds to the last byte)"
jar=$(mktemp)
trap 'rm -f "$jar"' EXIT
login_csrf=$(curl -sk -c "$jar" "$server/console/login" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -1)
curl -sk -b "$jar" -c "$jar" -o /dev/null "$server/console/login" --data-urlencode "csrf=$login_csrf" --data-urlencode "token=$token"
time_page() {
  local times=""
  for _ in 1 2 3 4 5; do
    times+=" $(curl -sk -b "$jar" -o /dev/null -w '%{time_total}' "$server$1")"
  done
  echo "   $1 → $(curl -sk -b "$jar" -o /dev/null -w '%{http_code} %{size_download} bytes' "$server$1"):$times"
}
time_page "/console/twomes/accounts/850001"
time_page "/console/twomes/devices/TWOMES-5C0001"
time_page "/console/twomes/silent"
time_page "/console/twomes/devices"
time_page "/console/twomes/accounts?q=8500"
time_page "/console"
curl -sk "$server/admin/v1/devices?silent_for=2h&limit=3" -H "Authorization: Bearer $token"; echo
curl -sk "$server/metrics" | grep '^custodian_twomes'

if [ $keep = no ]; then
  echo "== removing the study (--keep leaves it)"
  sql <<'SQL'
BEGIN;
DELETE FROM devices.measurements WHERE device_id IN (SELECT id FROM devices.devices WHERE name LIKE 'TWOMES-5C%');
DELETE FROM devices.uploads WHERE device_id IN (SELECT id FROM devices.devices WHERE name LIKE 'TWOMES-5C%');
DELETE FROM devices.devices WHERE name LIKE 'TWOMES-5C%';
DELETE FROM devices.accounts WHERE pseudonym BETWEEN 850000 AND 850299;
COMMIT;
SQL
fi
