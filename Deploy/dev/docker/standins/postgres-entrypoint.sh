#!/usr/bin/env bash
# The official postgres image's contract, in short: as root, own PGDATA and drop to postgres; on first start
# initialise PGDATA with POSTGRES_USER/POSTGRES_PASSWORD (scram-sha-256 from the network) and create POSTGRES_DB.
set -Eeo pipefail
if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" && chown -R postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
  exec gosu postgres "$0" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?the database is uninitialized and POSTGRES_PASSWORD is not set}"
  user=${POSTGRES_USER:-postgres}
  initdb --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") --auth-local=trust --auth-host=scram-sha-256 \
    -D "$PGDATA" >/dev/null
  printf "\nhost all all all scram-sha-256\n" >> "$PGDATA/pg_hba.conf"
  # A temporary server on the Unix socket only, as the official image does, to create the database.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  db=${POSTGRES_DB:-$user}
  if [ "$db" != postgres ]; then psql -v ON_ERROR_STOP=1 --username "$user" --dbname postgres -qc "CREATE DATABASE \"$db\""; fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "PostgreSQL init process complete; ready for start up."
fi
if [ "$1" = postgres ]; then
  exec postgres -c listen_addresses='*' "${@:2}"
fi
exec "$@"
