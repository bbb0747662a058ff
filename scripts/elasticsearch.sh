#!/usr/bin/env bash
# Run a real single-node Elasticsearch 8.8.2 without Docker, from the integ-test-zip on Maven Central.
#
#   scripts/elasticsearch.sh install            # fetch + unpack once (cached; ~/.m2 caches the zip)
#   scripts/elasticsearch.sh start [PORT]       # start on 127.0.0.1:PORT (default 9200), wait for yellow
#   scripts/elasticsearch.sh stop  [PORT]       # stop the node started on PORT, by its pidfile
#   scripts/elasticsearch.sh status [PORT]      # exit 0 and print health if it answers, else exit 1
#
# Every subcommand is idempotent. Settings (environment):
#   EGQA_ES_HOME      install folder (default: ~/.cache/egqa/elasticsearch, or /opt/egqa/elasticsearch
#                     as root, because ES runs as an unprivileged user that cannot read /root)
#   EGQA_ES_VERSION   distribution version (default 8.8.2)
#   EGQA_ES_USER      user ES runs as when this script runs as root (default egqa-es; created if absent)
#   EGQA_ES_HEAP      JVM heap (default 512m)
#   EGQA_ES_TIMEOUT   seconds to wait for the cluster to turn yellow (default 120)
#   ES_JAVA_HOME      JDK to run ES with (default: derived from `java` on PATH; ES ignores JAVA_HOME)
set -euo pipefail

VERSION="${EGQA_ES_VERSION:-8.8.2}"
if [[ "$(id -u)" == "0" ]]; then
  DEFAULT_HOME="/opt/egqa/elasticsearch"
else
  DEFAULT_HOME="${XDG_CACHE_HOME:-$HOME/.cache}/egqa/elasticsearch"
fi
ES_ROOT="${EGQA_ES_HOME:-$DEFAULT_HOME}"
DIST="$ES_ROOT/elasticsearch-$VERSION"
ES_USER="${EGQA_ES_USER:-egqa-es}"
HEAP="${EGQA_ES_HEAP:-512m}"
TIMEOUT="${EGQA_ES_TIMEOUT:-120}"

log() { echo "[elasticsearch.sh] $*" >&2; }
die() { log "error: $*"; exit 1; }

java_home() {
  if [[ -n "${ES_JAVA_HOME:-}" ]]; then echo "$ES_JAVA_HOME"; return; fi
  local java
  java="$(command -v java)" || die "no java on PATH: install a JDK 17+ or set ES_JAVA_HOME"
  dirname "$(dirname "$(readlink -f "$java")")"
}

run_dir() { echo "$ES_ROOT/run/$1"; }

as_es_user() {
  # ES refuses to run as root; as root we drop to $ES_USER, otherwise we run as ourselves.
  if [[ "$(id -u)" == "0" ]]; then
    runuser -u "$ES_USER" -- "$@"
  else
    "$@"
  fi
}

health() {
  curl -fsS --max-time 5 "http://127.0.0.1:$1/_cluster/health?wait_for_status=yellow&timeout=${2:-1s}" 2>/dev/null
}

cmd_install() {
  if [[ -x "$DIST/bin/elasticsearch" ]]; then
    log "already installed: $DIST"
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found: install Maven (it fetches ES $VERSION from Maven Central)"
  mkdir -p "$ES_ROOT"
  local staging="$ES_ROOT/.staging.$$"
  rm -rf "$staging"
  log "fetching org.elasticsearch.distribution.integ-test-zip:elasticsearch:$VERSION:zip from Maven Central"
  mkdir -p "$staging"
  # Run outside any project (a subshell in the staging folder) and keep the plugin's marker files there,
  # or it drops a literal `${project.basedir}/target` folder into the current directory.
  (cd "$staging" && mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:unpack \
    -Dartifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$VERSION:zip" \
    -DoutputDirectory="$staging" -DmarkersDirectory="$staging/.markers" \
    -Dmdep.overWriteReleases=true >&2)
  [[ -x "$staging/elasticsearch-$VERSION/bin/elasticsearch" ]] || die "unpacked zip has no bin/elasticsearch"
  mv "$staging/elasticsearch-$VERSION" "$DIST"
  rm -rf "$staging"
  log "installed: $DIST"
}

ensure_user() {
  [[ "$(id -u)" == "0" ]] || return 0
  if ! id "$ES_USER" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$ES_USER"
    log "created user $ES_USER"
  fi
  # ES writes its keystore, data and logs, so the user owns the install; it must also be able to
  # reach it (a folder under /root is not reachable), which we check rather than loosen permissions.
  chown -R "$ES_USER" "$ES_ROOT"
  runuser -u "$ES_USER" -- test -x "$DIST/bin/elasticsearch" \
    || die "user $ES_USER cannot reach $DIST; set EGQA_ES_HOME to a folder outside /root (e.g. /opt/egqa/elasticsearch)"
}

cmd_start() {
  local port="${1:-9200}" dir
  dir="$(run_dir "$port")"
  if health "$port" >/dev/null; then
    log "already running on 127.0.0.1:$port"
    return 0
  fi
  if [[ -f "$dir/es.pid" ]] && kill -0 "$(cat "$dir/es.pid")" 2>/dev/null; then
    log "process $(cat "$dir/es.pid") from an earlier start is still booting; waiting"
  else
    cmd_install
    mkdir -p "$dir/data" "$dir/logs"
    rm -f "$dir/es.pid"
    ensure_user
    local jh
    jh="$(java_home)"
    log "starting on 127.0.0.1:$port (heap $HEAP, ES_JAVA_HOME=$jh, data $dir)"
    as_es_user env ES_JAVA_HOME="$jh" ES_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP" ES_PATH_CONF="$DIST/config" \
      "$DIST/bin/elasticsearch" -d -p "$dir/es.pid" \
      -E discovery.type=single-node -E network.host=127.0.0.1 -E http.port="$port" \
      -E transport.port=$((port + 100)) \
      -E cluster.name="egqa-$port" -E node.name="egqa-$port" \
      -E path.data="$dir/data" -E path.logs="$dir/logs" \
      -E xpack.security.enabled=false -E cluster.routing.allocation.disk.threshold_enabled=false \
      >"$dir/stdout.log" 2>&1 \
      || { cat "$dir/stdout.log" >&2; die "elasticsearch failed to start (see $dir/logs)"; }
  fi
  local start=$SECONDS
  while (( SECONDS - start < TIMEOUT )); do
    if health "$port" 5s >/dev/null; then
      log "ready on 127.0.0.1:$port after $((SECONDS - start)) s"
      return 0
    fi
    if [[ -f "$dir/es.pid" ]] && ! kill -0 "$(cat "$dir/es.pid")" 2>/dev/null; then
      tail -n 40 "$dir/logs/egqa-$port.log" >&2 2>/dev/null || true
      die "elasticsearch exited during start-up (logs in $dir/logs)"
    fi
    sleep 1
  done
  die "elasticsearch not yellow after $TIMEOUT s (logs in $dir/logs)"
}

cmd_stop() {
  local port="${1:-9200}" dir pid
  dir="$(run_dir "$port")"
  if [[ ! -f "$dir/es.pid" ]]; then
    log "not running on port $port (no pidfile $dir/es.pid)"
    return 0
  fi
  pid="$(cat "$dir/es.pid")"
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then log "pid $pid did not stop in 30 s; sending KILL"; kill -9 "$pid"; fi
    log "stopped pid $pid (port $port)"
  else
    log "pid $pid is gone already"
  fi
  rm -f "$dir/es.pid"
}

cmd_status() {
  local port="${1:-9200}" out
  if out="$(health "$port")"; then echo "$out"; return 0; fi
  log "nothing answers on 127.0.0.1:$port"
  return 1
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start "${2:-9200}" ;;
  stop) cmd_stop "${2:-9200}" ;;
  status) cmd_status "${2:-9200}" ;;
  *) echo "usage: $0 {install|start [PORT]|stop [PORT]|status [PORT]}" >&2; exit 2 ;;
esac
