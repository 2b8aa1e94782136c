#!/usr/bin/env bash
# Serve a class from this machine without Docker: N replicas of the app (default 2) on
# loopback ports behind Debian's nginx (apt-get install nginx). Ctrl+C stops everything.
#
#   deploy/run_local.sh                      # http://127.0.0.1:8700
#   REPLICAS=4 PORT=8080 LISTEN=0.0.0.0:8080 deploy/run_local.sh   # a class on the LAN
#
# Each replica is `mondrian-explorer` (the console command: it prewarms every page's
# default link once it is healthy) with deploy/streamlit.env's settings.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
REPLICAS="${REPLICAS:-2}"
PORT="${PORT:-8700}"
LISTEN="${LISTEN:-127.0.0.1:$PORT}"
FIRST_REPLICA_PORT="${FIRST_REPLICA_PORT:-$((PORT + 1))}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
RUN_DIR="${RUN_DIR:-$(mktemp -d /tmp/mondrian-deploy.XXXXXX)}"
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
mkdir -p "$RUN_DIR/nginx"

pids=()
stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM

set -a
# shellcheck source=streamlit.env
. "$ROOT/deploy/streamlit.env"
set +a

upstreams=""
for i in $(seq 1 "$REPLICAS"); do
  port=$((FIRST_REPLICA_PORT + i - 1))
  (cd "$ROOT" && exec "$PYTHON" -m explorer_ui.cli --server.port "$port" \
      --server.address 127.0.0.1) >"$RUN_DIR/replica$i.log" 2>&1 &
  pids+=($!)
  upstreams="${upstreams}server 127.0.0.1:$port max_fails=2 fail_timeout=10s; "
done

# Wait for every replica's health check before nginx sends it students.
for i in $(seq 1 "$REPLICAS"); do
  port=$((FIRST_REPLICA_PORT + i - 1))
  "$PYTHON" -c "import sys; from explorer_ui.session_client import wait_healthy; \
wait_healthy(sys.argv[1], 120)" "http://127.0.0.1:$port"
done

# A complete nginx.conf around the site template, every path inside RUN_DIR.
sed -e "s|\${LISTEN}|$LISTEN|" -e "s|\${UPSTREAM_SERVERS}|$upstreams|" \
    "$ROOT/deploy/nginx/mondrian.conf.template" >"$RUN_DIR/nginx/mondrian.conf"
cp "$ROOT/deploy/nginx/mondrian_proxy.conf" "$RUN_DIR/nginx/mondrian_proxy.conf"
cat >"$RUN_DIR/nginx/nginx.conf" <<CONF
user $(id -un) $(id -gn);
worker_processes 1;
pid $RUN_DIR/nginx/nginx.pid;
error_log $RUN_DIR/nginx/error.log warn;
events { worker_connections 1024; }
http {
    client_body_temp_path $RUN_DIR/nginx/body;
    proxy_temp_path $RUN_DIR/nginx/proxy;
    fastcgi_temp_path $RUN_DIR/nginx/fastcgi;
    uwsgi_temp_path $RUN_DIR/nginx/uwsgi;
    scgi_temp_path $RUN_DIR/nginx/scgi;
    include $RUN_DIR/nginx/mondrian.conf;
    access_log $RUN_DIR/nginx/access.log mondrian_upstream;
}
CONF
"$NGINX" -t -q -p "$RUN_DIR/nginx" -c "$RUN_DIR/nginx/nginx.conf"
"$NGINX" -p "$RUN_DIR/nginx" -c "$RUN_DIR/nginx/nginx.conf" -g "daemon off;" &
pids+=($!)
echo "Mondrian Explorer: http://$LISTEN ($REPLICAS replicas; logs in $RUN_DIR)"
wait -n
