#!/usr/bin/env bash
# Throwaway Redis, OpenSearch and Elasticsearch on loopback for tests and CI.
#
#   .ci/services.sh redis-start          install redis-server if missing, start, print REDIS_URL=...
#   .ci/services.sh redis-stop
#   .ci/services.sh redis-restart
#   .ci/services.sh opensearch-start     build/resolve via Maven (cached), start, print OPENSEARCH_URL=...
#   .ci/services.sh opensearch-stop
#   .ci/services.sh elasticsearch-start  same for Elasticsearch 8, print ELASTICSEARCH_URL=...
#   .ci/services.sh elasticsearch-stop
#   .ci/services.sh start-all | stop-all | status   (all three)
#   eval "$(.ci/services.sh env)"        export REDIS_URL / OPENSEARCH_URL, and ELASTICSEARCH_URL
#                                        only while Elasticsearch answers (the service prefers it;
#                                        the engine test suites run once per engine)
#
# Environment (all optional):
#   SERVICES_DIR               pidfiles, logs, engine node homes (default <repo>/.cache/services)
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
#   ELASTICSEARCH_PORT         HTTP port (default 9260); transport uses ELASTICSEARCH_TRANSPORT_PORT
#                              (default ELASTICSEARCH_PORT+100)
#   ELASTICSEARCH_JAVA_HOME, ELASTICSEARCH_JAVA_OPTS, ELASTICSEARCH_START_TIMEOUT,
#   ELASTICSEARCH_KEEP_DATA=1  as for OpenSearch (test/elasticsearch/pom.xml: core Elasticsearch
#                              8.19 + netty4 from Maven Central, JDK 21+)
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
ELASTICSEARCH_PORT="${ELASTICSEARCH_PORT:-9260}"
ELASTICSEARCH_TRANSPORT_PORT="${ELASTICSEARCH_TRANSPORT_PORT:-$((ELASTICSEARCH_PORT + 100))}"
ELASTICSEARCH_JAVA_OPTS="${ELASTICSEARCH_JAVA_OPTS:--Xms512m -Xmx1g -XX:TieredStopAtLevel=1}"
ELASTICSEARCH_START_TIMEOUT="${ELASTICSEARCH_START_TIMEOUT:-180}"

REDIS_URL="redis://127.0.0.1:${REDIS_PORT}"
OPENSEARCH_URL="http://127.0.0.1:${OPENSEARCH_PORT}"
REDIS_PIDFILE="$SERVICES_DIR/redis-${REDIS_PORT}.pid"
REDIS_LOG="$SERVICES_DIR/redis-${REDIS_PORT}.log"
ELASTICSEARCH_URL="http://127.0.0.1:${ELASTICSEARCH_PORT}"

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

# ---------------------------------------------------------------- Maven-built test nodes

java_feature_version() { # java binary -> major version number, or nothing
  "$1" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n1
}

find_java_home() { # [preferred java home]
  local cand v
  for cand in "${1:-}" "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    [[ -n "$cand" && -x "$cand/bin/java" && -x "$cand/bin/javac" ]] || continue
    v="$(java_feature_version "$cand/bin/java")"
    if [[ -n "$v" ]] && ((v >= 21)); then
      echo "$cand"
      return 0
    fi
  done
  return 1
}

# Succeeds if the module's pom or any of its sources is newer than the given file.
build_inputs_newer_than() { # module_dir file
  [[ -n "$(find "$1/pom.xml" "$1/src" -newer "$2" -print -quit 2>/dev/null)" ]]
}

# Compiles a test-node module (test/opensearch, test/elasticsearch) and writes its runtime
# classpath, unless both are already there, up to date and every jar on it still exists.
maven_build() { # java_home module_dir main_class_file classpath_file build_log
  local java_home=$1 module=$2 classes=$3 cpfile=$4 log=$5
  mkdir -p "$SERVICES_DIR"
  if [[ -s "$cpfile" && -f "$classes" ]] && ! build_inputs_newer_than "$module" "$cpfile"; then
    local jar missing=0
    while IFS= read -r -d ':' jar; do
      [[ -z "$jar" || -f "$jar" ]] || { missing=1; break; }
    done < <(tr -d '\n' <"$cpfile"; printf ':')
    ((missing == 0)) && return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found (apt-get install maven)"
  # Resolves everything from Maven Central into ~/.m2 on the first run; later runs need no network.
  if ! JAVA_HOME="$java_home" MAVEN_OPTS="${MAVEN_OPTS:-} -Djava.awt.headless=true" \
    mvn -q -B -f "$module/pom.xml" compile dependency:build-classpath \
    -Dmdep.outputFile="$cpfile.tmp" >"$log" 2>&1; then
    grep -E 'ERROR|BUILD' "$log" | head -n 30 >&2 || true
    show_log_tail "$log" 20
    die "Maven build of ${module#"$ROOT/"} failed (full log: $log)"
  fi
  mv -f "$cpfile.tmp" "$cpfile"
}

# Starts the Maven-built node of test/<module> unless one answers already, and waits until it is
# healthy; if it exits or times out, shows the end of its log and fails. Its settings are the
# <PREFIX>_* variables (PORT, TRANSPORT_PORT, JAVA_HOME, JAVA_OPTS, KEEP_DATA, START_TIMEOUT, URL);
# its files are $SERVICES_DIR/<module>{.pid,.log,.classpath,-build.log,/}.
start_node() { # label module PREFIX main_class health_fn stop_fn [extra JVM flags...]
  local label=$1 module=$2 prefix=$3 class=$4 health=$5 stop=$6
  shift 6
  local url_var="${prefix}_URL" port_var="${prefix}_PORT" tport_var="${prefix}_TRANSPORT_PORT"
  local jh_var="${prefix}_JAVA_HOME" opts_var="${prefix}_JAVA_OPTS" keep_var="${prefix}_KEEP_DATA" timeout_var="${prefix}_START_TIMEOUT"
  local url=${!url_var} port=${!port_var} timeout=${!timeout_var}
  local pidfile="$SERVICES_DIR/$module.pid" log="$SERVICES_DIR/$module.log" home="$SERVICES_DIR/$module"
  local cpfile="$SERVICES_DIR/$module.classpath"
  mkdir -p "$SERVICES_DIR"
  local pid
  if pid="$(pid_alive "$pidfile" "$class")"; then
    : # ours, maybe still starting: wait below
  elif "$health"; then
    echo "$url_var=$url" # something already serves this port
    return 0
  else
    local java_home
    java_home="$(find_java_home "${!jh_var:-}")" ||
      die "$label needs a JDK 21+; none found (set $jh_var, e.g. /usr/lib/jvm/temurin-25-jdk-amd64)"
    maven_build "$java_home" "$ROOT/test/$module" "$ROOT/test/$module/target/classes/hwfacts/testsupport/$class.class" \
      "$cpfile" "$SERVICES_DIR/$module-build.log"
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      die "port $port is in use by something that is not an $label cluster"
    fi
    if [[ "${!keep_var:-0}" != 1 ]]; then
      rm -rf "$home"
    fi
    mkdir -p "$home/tmp"
    # shellcheck disable=SC2086 # <PREFIX>_JAVA_OPTS is a list of flags
    setsid env "$port_var=$port" "$tport_var=${!tport_var}" "${prefix}_HOME=$home" \
      "$java_home/bin/java" ${!opts_var} "$@" \
      -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError \
      -Djava.io.tmpdir="$home/tmp" -Djava.awt.headless=true -Dfile.encoding=UTF-8 \
      -Dlog4j.shutdownHookEnabled=false -Dlog4j2.disable.jmx=true -Dlog4j2.formatMsgNoLookups=true \
      -cp "$ROOT/test/$module/target/classes:$(tr -d '\n' <"$cpfile")" \
      "hwfacts.testsupport.$class" \
      >"$log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$pidfile"
  fi

  local deadline=$((SECONDS + timeout))
  until "$health"; do
    if ! running "$pid"; then
      rm -f "$pidfile"
      show_log_tail "$log"
      die "$label exited during startup (log: $log)"
    fi
    if ((SECONDS >= deadline)); then
      show_log_tail "$log"
      "$stop" || true
      die "$label did not reach yellow health on $url within ${timeout}s"
    fi
    sleep 1
  done
  echo "$url_var=$url"
}

# Stops the test node of test/<module> that this script started (TERM, then KILL after 30 s);
# a no-op when none runs.
stop_node() { # label module main_class
  local pidfile="$SERVICES_DIR/$2.pid" pid
  if pid="$(pid_alive "$pidfile" "$3")"; then
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_gone "$pid" 30; then
      kill -KILL "$pid" 2>/dev/null || true
      wait_gone "$pid" 5 || die "could not stop $1 (pid $pid)"
    fi
  fi
  rm -f "$pidfile"
}

# ---------------------------------------------------------------- OpenSearch

os_health() { # succeeds once the cluster is at least yellow
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
    "$OPENSEARCH_URL/_cluster/health?wait_for_status=yellow&timeout=2s" 2>/dev/null)" || return 1
  [[ "$code" == 200 ]]
}

opensearch_start() { start_node OpenSearch opensearch OPENSEARCH OpenSearchTestNode os_health opensearch_stop; }
opensearch_stop() { stop_node OpenSearch opensearch OpenSearchTestNode; }

# ---------------------------------------------------------------- Elasticsearch

es_health() { # succeeds once an Elasticsearch cluster answers and is at least yellow
  local headers
  headers="$(curl -s -D - -o /dev/null --max-time 5 \
    "$ELASTICSEARCH_URL/_cluster/health?wait_for_status=yellow&timeout=2s" 2>/dev/null)" || return 1
  [[ "$headers" =~ ^HTTP/[0-9.]+\ 200 ]] && grep -qi '^x-elastic-product: *Elasticsearch' <<<"$headers"
}

elasticsearch_start() {
  start_node Elasticsearch elasticsearch ELASTICSEARCH ElasticsearchTestNode es_health elasticsearch_stop \
    --enable-native-access=ALL-UNNAMED
}
elasticsearch_stop() { stop_node Elasticsearch elasticsearch ElasticsearchTestNode; }

# ---------------------------------------------------------------- misc

print_env() {
  echo "export REDIS_URL=$REDIS_URL"
  echo "export OPENSEARCH_URL=$OPENSEARCH_URL"
  # Only while it answers: the service prefers ELASTICSEARCH_URL over OPENSEARCH_URL, so a
  # stopped Elasticsearch must not take over a shell that only has OpenSearch running.
  if es_health; then
    echo "export ELASTICSEARCH_URL=$ELASTICSEARCH_URL"
  fi
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
  if es_health; then
    echo "elasticsearch: up ($ELASTICSEARCH_URL)"
  else
    echo "elasticsearch: down"
    rc=1
  fi
  return "$rc"
}

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

case "${1:-}" in
  redis-start) redis_start ;;
  redis-stop) redis_stop ;;
  redis-restart) redis_stop && redis_start ;;
  opensearch-start) opensearch_start ;;
  opensearch-stop) opensearch_stop ;;
  elasticsearch-start) elasticsearch_start ;;
  elasticsearch-stop) elasticsearch_stop ;;
  start-all) redis_start && opensearch_start && elasticsearch_start ;;
  stop-all)
    rc=0
    elasticsearch_stop || rc=1
    opensearch_stop || rc=1
    redis_stop || rc=1
    exit "$rc"
    ;;
  env) print_env ;;
  status) status ;;
  *) usage ;;
esac
