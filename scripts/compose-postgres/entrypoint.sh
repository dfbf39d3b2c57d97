#!/bin/sh
# First start on an empty data folder: initdb with POSTGRES_USER / POSTGRES_PASSWORD (password
# authentication from other hosts), then POSTGRES_DB; then PostgreSQL runs as `postgres`, as the
# official image's entrypoint does.
set -eu
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  runuser -u postgres -- initdb --pgdata="$PGDATA" --username="$user" --pwfile="$pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  if [ "$db" != "postgres" ]; then
    runuser -u postgres -- pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait start >/dev/null
    runuser -u postgres -- psql --username="$user" --dbname=postgres --quiet \
      --command="CREATE DATABASE \"$db\" OWNER \"$user\""
    runuser -u postgres -- pg_ctl --pgdata="$PGDATA" --mode=fast --wait stop >/dev/null
  fi
  echo "postgres-entrypoint: initialized $PGDATA (user $user, database $db)"
fi
if [ "$1" = "postgres" ]; then
  exec runuser -u postgres -- "$@"
fi
exec "$@"
