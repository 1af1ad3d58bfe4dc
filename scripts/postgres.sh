#!/usr/bin/env bash
# A PostgreSQL server of the tests' own (Debian's package; scripts/setup.sh installs it), on
# loopback and a free port, for the class server's tests on PostgreSQL:
#   eval "$(bash scripts/postgres.sh start DIR)"   # starts it; exports LAB_CLASS_PG, its URL
#   bash scripts/postgres.sh stop DIR
# DIR holds its data, socket and log (made for it; kept, so a second start is quick). As root it
# runs as Debian's `postgres` user, as PostgreSQL requires. Exit status 2: PostgreSQL is not
# installed.
set -euo pipefail
cmd="${1:?start or stop}"
dir="${2:?a folder for the server}"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "PostgreSQL is not installed (Debian's postgresql package: scripts/setup.sh installs it)" >&2
  exit 2
fi
as=()
owner="$(id -un)"
if [ "$(id -u)" -eq 0 ]; then
  as=(runuser -u postgres --)
  owner=postgres
fi
case "$cmd" in
  start)
    mkdir -p "$dir"
    chown "$owner" "$dir"
    chmod 700 "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      "${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-instructions >/dev/null
    fi
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    # Loopback only; fsync off: a test database need not survive a power cut.
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null
    echo "export LAB_CLASS_PG=postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  *)
    echo "usage: scripts/postgres.sh start|stop DIR" >&2
    exit 1
    ;;
esac
