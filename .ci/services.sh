#!/usr/bin/env bash
# Throwaway Redis and OpenSearch on loopback for tests and CI.
#
#   .ci/services.sh redis-start        install redis-server if missing, start, print REDIS_URL=...
#   .ci/services.sh redis-stop
#   .ci/services.sh redis-restart
#   .ci/services.sh opensearch-start   build/resolve via Maven (cached), start, print OPENSEARCH_URL=...
#   .ci/services.sh opensearch-stop
#   .ci/services.sh start-all | stop-all | status
#   eval "$(.ci/services.sh env)"      export REDIS_URL / OPENSEARCH_URL
#
# Environment (all optional):
#   SERVICES_DIR               pidfiles, logs, OpenSearch home   (default <repo>/.cache/services)
#   REDIS_PORT                 (default 6390)
#   OPENSEARCH_PORT            HTTP port (default 9250); transport uses OPENSEARCH_TRANSPORT_PORT
#                              (default OPENSEARCH_PORT+100)
#   OPENSEARCH_JAVA_HOME       JDK 21+ to run OpenSearch 3.x (default: JAVA_HOME if it is 21+,
#                              else /usr/lib/jvm/temurin-25-jdk-amd64, else any 21+ JDK in /usr/lib/jvm)
#   OPENSEARCH_JAVA_OPTS       (default "-Xms512m -Xmx1g -XX:TieredStopAtLevel=1": C1 JIT only, which
#                              halves startup CPU on 2 cores; drop it for benchmarks on a warm node)
#   OPENSEARCH_START_TIMEOUT   seconds to wait for yellow health (default 180)
#   OPENSEARCH_KEEP_DATA=1     keep indices from the previous run (default: every start is a fresh,
#                              empty cluster)
#
# Start is a no-op when the service already answers on its port; stop is a no-op when it is not
# running. Quiet on success apart from the URL lines; on failure the end of the log goes to stderr.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVICES_DIR="${SERVICES_DIR:-$ROOT/.cache/services}"
REDIS_PORT="${REDIS_PORT:-6390}"
OPENSEARCH_PORT="${OPENSEARCH_PORT:-9250}"
OPENSEARCH_TRANSPORT_PORT="${OPENSEARCH_TRANSPORT_PORT:-$((OPENSEARCH_PORT + 100))}"
OPENSEARCH_JAVA_OPTS="${OPENSEARCH_JAVA_OPTS:--Xms512m -Xmx1g -XX:TieredStopAtLevel=1}"
OPENSEARCH_START_TIMEOUT="${OPENSEARCH_START_TIMEOUT:-180}"
OS_POM="$ROOT/test/opensearch/pom.xml"

REDIS_URL="redis://127.0.0.1:${REDIS_PORT}"
OPENSEARCH_URL="http://127.0.0.1:${OPENSEARCH_PORT}"
REDIS_PIDFILE="$SERVICES_DIR/redis-${REDIS_PORT}.pid"
REDIS_LOG="$SERVICES_DIR/redis-${REDIS_PORT}.log"
OS_PIDFILE="$SERVICES_DIR/opensearch.pid"
OS_LOG="$SERVICES_DIR/opensearch.log"
OS_HOME="$SERVICES_DIR/opensearch"
OS_CLASSPATH="$SERVICES_DIR/opensearch.classpath"
OS_BUILD_LOG="$SERVICES_DIR/opensearch-build.log"

die() {
  echo "services.sh: $*" >&2
  exit 1
}

show_log_tail() { # file [lines]
  if [[ -s "$1" ]]; then
    echo "---- last lines of $1 ----" >&2
    tail -n "${2:-40}" "$1" >&2
    echo "----" >&2
  fi
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

# pid_alive PIDFILE PATTERN -> prints pid and succeeds if the pid in PIDFILE is running and its
# command line contains PATTERN (guards against a recycled pid).
pid_alive() {
  local pidfile=$1 pattern=$2 pid
  [[ -s "$pidfile" ]] || return 1
  pid="$(tr -dc '0-9' <"$pidfile")"
  [[ -n "$pid" ]] || return 1
  running "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern" || return 1
  echo "$pid"
}

# running PID: exists and is not a zombie (daemons are reparented to pid 1, which may reap late)
running() {
  kill -0 "$1" 2>/dev/null || return 1
  local state
  state="$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)"
  [[ "$state" != Z ]]
}

# wait_gone PID SECONDS
wait_gone() {
  local pid=$1 tries=$(($2 * 10))
  while running "$pid" && ((tries-- > 0)); do sleep 0.1; done
  ! running "$pid"
}

# ---------------------------------------------------------------- Redis

redis_ping() {
  [[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" == PONG ]]
}

redis_install() {
  if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
    return 0
  fi
  mkdir -p "$SERVICES_DIR"
  local log="$SERVICES_DIR/apt-redis.log"
  if ! { as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server; } \
    >"$log" 2>&1; then
    show_log_tail "$log"
    die "could not install redis-server with apt-get"
  fi
  command -v redis-server >/dev/null 2>&1 || die "redis-server still missing after apt-get install"
}

redis_start() {
  redis_install
  mkdir -p "$SERVICES_DIR"
  if redis_ping; then
    echo "REDIS_URL=$REDIS_URL"
    return 0
  fi
  rm -f "$REDIS_PIDFILE"
  # No persistence at all: no RDB snapshots, no AOF; a throwaway instance.
  # shellcheck disable=SC2094 # redis appends to its own logfile only after daemonizing
  if ! redis-server --bind 127.0.0.1 --port "$REDIS_PORT" \
    --save '' --appendonly no \
    --daemonize yes --pidfile "$REDIS_PIDFILE" --logfile "$REDIS_LOG" --dir "$SERVICES_DIR" \
    >>"$REDIS_LOG" 2>&1; then
    show_log_tail "$REDIS_LOG"
    die "redis-server did not start on port $REDIS_PORT"
  fi
  local tries=100 # 10 s
  until redis_ping; do
    if ((tries-- <= 0)); then
      show_log_tail "$REDIS_LOG"
      die "redis on 127.0.0.1:$REDIS_PORT did not answer PING within 10 s"
    fi
    sleep 0.1
  done
  echo "REDIS_URL=$REDIS_URL"
}

redis_stop() {
  local pid=""
  pid="$(pid_alive "$REDIS_PIDFILE" redis-server)" || pid=""
  if command -v redis-cli >/dev/null 2>&1 && redis_ping; then
    redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
  fi
  if [[ -n "$pid" ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    wait_gone "$pid" 10 || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$REDIS_PIDFILE"
  if command -v redis-cli >/dev/null 2>&1 && redis_ping; then
    die "redis on port $REDIS_PORT is still answering (not started by this script?)"
  fi
}

# ---------------------------------------------------------------- OpenSearch

java_feature_version() { # java binary -> major version number, or nothing
  "$1" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n1
}

find_java_home() {
  local cand v
  for cand in "${OPENSEARCH_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    [[ -n "$cand" && -x "$cand/bin/java" && -x "$cand/bin/javac" ]] || continue
    v="$(java_feature_version "$cand/bin/java")"
    if [[ -n "$v" ]] && ((v >= 21)); then
      echo "$cand"
      return 0
    fi
  done
  return 1
}

os_health() { # succeeds once the cluster is at least yellow
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
    "$OPENSEARCH_URL/_cluster/health?wait_for_status=yellow&timeout=2s" 2>/dev/null)" || return 1
  [[ "$code" == 200 ]]
}

# Succeeds if the pom or any source is newer than the given file.
os_build_inputs_newer_than() { # file
  [[ -n "$(find "$OS_POM" "$ROOT/test/opensearch/src" -newer "$1" -print -quit 2>/dev/null)" ]]
}

os_build() { # java_home
  local java_home=$1 classes="$ROOT/test/opensearch/target/classes/hwfacts/testsupport/OpenSearchTestNode.class"
  mkdir -p "$SERVICES_DIR"
  if [[ -s "$OS_CLASSPATH" && -f "$classes" ]] && ! os_build_inputs_newer_than "$OS_CLASSPATH"; then
    local jar missing=0
    while IFS= read -r -d ':' jar; do
      [[ -z "$jar" || -f "$jar" ]] || { missing=1; break; }
    done < <(tr -d '\n' <"$OS_CLASSPATH"; printf ':')
    ((missing == 0)) && return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found (apt-get install maven)"
  # Resolves everything from Maven Central into ~/.m2 on the first run; later runs need no network.
  if ! JAVA_HOME="$java_home" MAVEN_OPTS="${MAVEN_OPTS:-} -Djava.awt.headless=true" \
    mvn -q -B -f "$OS_POM" compile dependency:build-classpath \
    -Dmdep.outputFile="$OS_CLASSPATH.tmp" >"$OS_BUILD_LOG" 2>&1; then
    grep -E 'ERROR|BUILD' "$OS_BUILD_LOG" | head -n 30 >&2 || true
    show_log_tail "$OS_BUILD_LOG" 20
    die "Maven build of test/opensearch failed (full log: $OS_BUILD_LOG)"
  fi
  mv -f "$OS_CLASSPATH.tmp" "$OS_CLASSPATH"
}

opensearch_start() {
  mkdir -p "$SERVICES_DIR"
  local pid
  if pid="$(pid_alive "$OS_PIDFILE" OpenSearchTestNode)"; then
    : # ours, maybe still starting: wait below
  elif os_health; then
    echo "OPENSEARCH_URL=$OPENSEARCH_URL" # something already serves this port
    return 0
  else
    local java_home
    java_home="$(find_java_home)" ||
      die "OpenSearch 3.x needs a JDK 21+; none found (set OPENSEARCH_JAVA_HOME, e.g. /usr/lib/jvm/temurin-25-jdk-amd64)"
    os_build "$java_home"
    if (exec 3<>"/dev/tcp/127.0.0.1/$OPENSEARCH_PORT") 2>/dev/null; then
      die "port $OPENSEARCH_PORT is in use by something that is not an OpenSearch cluster"
    fi
    if [[ "${OPENSEARCH_KEEP_DATA:-0}" != 1 ]]; then
      rm -rf "$OS_HOME"
    fi
    mkdir -p "$OS_HOME/tmp"
    # shellcheck disable=SC2086 # OPENSEARCH_JAVA_OPTS is a list of flags
    OPENSEARCH_PORT="$OPENSEARCH_PORT" OPENSEARCH_TRANSPORT_PORT="$OPENSEARCH_TRANSPORT_PORT" \
      OPENSEARCH_HOME="$OS_HOME" \
      setsid "$java_home/bin/java" $OPENSEARCH_JAVA_OPTS \
      -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError \
      -Djava.io.tmpdir="$OS_HOME/tmp" -Djava.awt.headless=true -Dfile.encoding=UTF-8 \
      -Dlog4j.shutdownHookEnabled=false -Dlog4j2.disable.jmx=true -Dlog4j2.formatMsgNoLookups=true \
      -cp "$ROOT/test/opensearch/target/classes:$(tr -d '\n' <"$OS_CLASSPATH")" \
      hwfacts.testsupport.OpenSearchTestNode \
      >"$OS_LOG" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$OS_PIDFILE"
  fi

  local deadline=$((SECONDS + OPENSEARCH_START_TIMEOUT))
  until os_health; do
    if ! running "$pid"; then
      rm -f "$OS_PIDFILE"
      show_log_tail "$OS_LOG"
      die "OpenSearch exited during startup (log: $OS_LOG)"
    fi
    if ((SECONDS >= deadline)); then
      show_log_tail "$OS_LOG"
      opensearch_stop || true
      die "OpenSearch did not reach yellow health on $OPENSEARCH_URL within ${OPENSEARCH_START_TIMEOUT}s"
    fi
    sleep 1
  done
  echo "OPENSEARCH_URL=$OPENSEARCH_URL"
}

opensearch_stop() {
  local pid
  if pid="$(pid_alive "$OS_PIDFILE" OpenSearchTestNode)"; then
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_gone "$pid" 30; then
      kill -KILL "$pid" 2>/dev/null || true
      wait_gone "$pid" 5 || die "could not stop OpenSearch (pid $pid)"
    fi
  fi
  rm -f "$OS_PIDFILE"
}

# ---------------------------------------------------------------- misc

print_env() {
  echo "export REDIS_URL=$REDIS_URL"
  echo "export OPENSEARCH_URL=$OPENSEARCH_URL"
}

status() {
  local rc=0
  if command -v redis-cli >/dev/null 2>&1 && redis_ping; then
    echo "redis: up ($REDIS_URL)"
  else
    echo "redis: down"
    rc=1
  fi
  if os_health; then
    echo "opensearch: up ($OPENSEARCH_URL)"
  else
    echo "opensearch: down"
    rc=1
  fi
  return "$rc"
}

usage() {
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

case "${1:-}" in
  redis-start) redis_start ;;
  redis-stop) redis_stop ;;
  redis-restart) redis_stop && redis_start ;;
  opensearch-start) opensearch_start ;;
  opensearch-stop) opensearch_stop ;;
  start-all) redis_start && opensearch_start ;;
  stop-all)
    rc=0
    opensearch_stop || rc=1
    redis_stop || rc=1
    exit "$rc"
    ;;
  env) print_env ;;
  status) status ;;
  *) usage ;;
esac
