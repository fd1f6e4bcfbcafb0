#!/usr/bin/env bash
# A single-node Apache Kafka 4.x broker (KRaft, broker+controller in one JVM)
# on 127.0.0.1 for development and integration tests. It runs from the jars
# that deploy/setup.sh put in $QINFER_CACHE/kafka-<version>/libs: no Kafka
# tarball, no ZooKeeper.
#
#   kafka-local.sh start DIR [PORT]      start (or reuse) the broker kept in DIR;
#                                        PORT defaults to 9092, the controller
#                                        listens on PORT+1; prints the bootstrap
#                                        address (host:port) on stdout. PORT
#                                        `auto`: a free pair picked here, and
#                                        another (DIR's cluster made anew) when
#                                        a process takes one of them between
#                                        the pick and the broker's bind, up to
#                                        5 pairs
#   kafka-local.sh stop DIR              SIGTERM, wait, SIGKILL after a timeout
#   kafka-local.sh status DIR            exit 0 if running (3 if not)
#   kafka-local.sh create-topic DIR TOPIC PARTITIONS [TOPIC PARTITIONS ...]
#                                        create topics, replication factor 1;
#                                        an existing topic is fine; several
#                                        pairs share one JVM start
#   kafka-local.sh bootstrap DIR         print host:port of the broker in DIR
#
# DIR holds everything: server.properties, log4j2.properties, data/ (the
# Kafka log dirs), broker.log (log4j), broker.out (JVM stdout/stderr),
# broker.pid and port. Reusing DIR keeps topics and offsets across restarts;
# delete it (after stop) for a fresh cluster.
#
# Environment:
#   QINFER_CACHE                 cache root (default ~/.cache/qinfer)
#   QINFER_KAFKA_LIBS            jar directory (default: from deploy/kafka/pom.xml)
#   QINFER_KAFKA_HEAP            broker heap flags (default "-Xmx512m -Xms512m")
#   QINFER_KAFKA_PROPS           extra server.properties lines (newline-separated)
#   QINFER_KAFKA_START_TIMEOUT   seconds to wait for the broker (default 90)
#   QINFER_KAFKA_STOP_TIMEOUT    seconds before SIGKILL (default 60)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QINFER_CACHE=${QINFER_CACHE:-$HOME/.cache/qinfer}
HOST=127.0.0.1
NODE_ID=1

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'kafka-local.sh: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
short_usage() {
  echo "usage: kafka-local.sh start|stop|status|bootstrap DIR, start DIR PORT," \
       "create-topic DIR TOPIC PARTITIONS... (--help for more)" >&2
  exit 2
}

kafka_libs() {
  if [[ -n ${QINFER_KAFKA_LIBS:-} ]]; then
    LIBS=$QINFER_KAFKA_LIBS
  else
    local v
    v=$(sed -n 's:.*<kafka\.version>\(.*\)</kafka\.version>.*:\1:p' \
          "$REPO/deploy/kafka/pom.xml")
    LIBS=$QINFER_CACHE/kafka-$v/libs
  fi
  compgen -G "$LIBS/kafka_2.13-*.jar" >/dev/null ||
    die "no Kafka jars in $LIBS; run deploy/setup.sh --no-build first"
}

# Short-lived tool JVMs: C1 only and a serial GC start noticeably faster.
tool_java() {
  java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dlog4j2.configurationFile="$DIR/tools-log4j2.properties" \
    -cp "$LIBS/*" "$@"
}

# Sets DIR (absolute) from the first argument; only `start` creates it.
set_dir() {
  [[ -n ${1:-} ]] || short_usage
  [[ ${2:-} == create ]] && mkdir -p "$1"
  [[ -d $1 ]] || die "no such directory: $1"
  DIR=$(cd "$1" && pwd)
}

# Prints the broker's pid when the process in DIR/broker.pid is alive and is
# really our broker (a stale pid file may name a recycled pid).
broker_pid() {
  local pid
  pid=$(cat "$DIR/broker.pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null |
    grep -qF "kafka.Kafka $DIR/server.properties" || return 1
  echo "$pid"
}

bootstrap() { echo "$HOST:$(cat "$DIR/port")"; }

port_busy() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# A broker is ready once it answers a metadata request listing itself.
# kcat -m: seconds to wait for the metadata answer. The port probe first
# keeps kcat from sitting in its reconnect backoff while the JVM starts.
broker_ready() {
  port_busy "$(cat "$DIR/port")" &&
    kcat -b "$(bootstrap)" -L -m 3 2>/dev/null | grep -q "broker $NODE_ID at"
}

write_configs() {
  local port=$1 cport=$2
  # log4j2 (Kafka 4 dropped log4j 1.x). Rolling keeps long test sessions
  # from filling the disk.
  cat >"$DIR/log4j2.properties" <<EOF
status = warn
appender.file.type = RollingFile
appender.file.name = FILE
appender.file.fileName = $DIR/broker.log
appender.file.filePattern = $DIR/broker.log.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 20MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 3
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
# Per-request and state-change logging would dwarf everything else.
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.requestchannel.name = kafka.network.RequestChannel\$
logger.requestchannel.level = WARN
logger.statechange.name = state.change.logger
logger.statechange.level = WARN
EOF
  # Tools (StorageTool, TopicCommand) only report warnings, on stderr.
  cat >"$DIR/tools-log4j2.properties" <<'EOF'
status = warn
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
EOF
  # Combined-mode KRaft node. controller.quorum.bootstrap.servers (not
  # controller.quorum.voters) is what `format --standalone` requires: it
  # makes a dynamic quorum whose only voter is this node.
  cat >"$DIR/server.properties" <<EOF
process.roles=broker,controller
node.id=$NODE_ID
controller.quorum.bootstrap.servers=$HOST:$cport
listeners=PLAINTEXT://$HOST:$port,CONTROLLER://$HOST:$cport
advertised.listeners=PLAINTEXT://$HOST:$port,CONTROLLER://$HOST:$cport
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$DIR/data
num.network.threads=2
num.io.threads=4
num.partitions=3
auto.create.topics.enable=false
# One broker: every internal topic gets replication factor 1.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# Tests want consumer groups to start at once, not after 3 s.
group.initial.rebalance.delay.ms=0
EOF
  if [[ -n ${QINFER_KAFKA_PROPS:-} ]]; then
    printf '# QINFER_KAFKA_PROPS\n%s\n' "$QINFER_KAFKA_PROPS" >>"$DIR/server.properties"
  fi
}

random_cluster_id() {
  # A Kafka Uuid: 16 random bytes, URL-safe base64 without padding. Like
  # Kafka's Uuid.randomUuid, avoid a leading '-' (it would parse as a flag).
  local id
  while :; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
    [[ $id != -* ]] && { echo "$id"; return; }
  done
}

# A port p with p and p + 1 free when asked (the broker's and its controller's).
free_pair() {
  local p
  for _ in $(seq 50); do
    p=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    ((p < 65535)) && ! port_busy "$p" && ! port_busy $((p + 1)) && { echo "$p"; return 0; }
  done
  return 1
}

# start DIR auto: cmd_start on a free pair; a start that lost a port to
# another process (a bind failure) is tried again on another pair, with DIR's
# cluster formatted anew (it records its ports). Any other failure ends it.
cmd_start_auto() {
  set_dir "${1:-}" create
  local attempt p err="$DIR/start.err"
  for attempt in 1 2 3 4 5; do
    p=$(free_pair) || die "no free port pair on $HOST"
    if [[ -f $DIR/port ]] && ! broker_pid >/dev/null; then
      rm -rf "$DIR/data" "$DIR/port" "$DIR/broker.pid"  # a cluster of a pair given up on
    fi
    # Its messages go to a file (shown after), not a pipe: the broker would
    # inherit a pipe and hold it open.
    if (cmd_start "$DIR" "$p") 2>"$err"; then
      cat "$err" >&2
      return 0
    fi
    cat "$err" >&2
    grep -qs "already in use" "$err" "$DIR/broker.log" "$DIR/broker.out" ||
      die "broker did not start on port $p (not a port taken meanwhile; see above)"
    log "port $p or $((p + 1)) was taken before the broker bound it (attempt $attempt of 5); another pair"
    : >"$DIR/broker.log"
    : >"$DIR/broker.out"
  done
  die "broker did not start on 5 port pairs"
}

cmd_start() {
  set_dir "${1:-}" create
  local port=${2:-9092}
  [[ $port =~ ^[0-9]+$ ]] || die "bad port: $port"
  local cport=$((port + 1))
  kafka_libs

  local pid
  if pid=$(broker_pid); then
    log "broker already running for $DIR (pid $pid)"
    bootstrap
    return 0
  fi
  # The formatted metadata records the controller's endpoint, so a DIR stays
  # bound to the port it was created with.
  if [[ -f $DIR/port && -f $DIR/data/meta.properties && $(cat "$DIR/port") != "$port" ]]; then
    die "$DIR holds a cluster made for port $(cat "$DIR/port"); use that port or a fresh DIR"
  fi
  local p
  for p in "$port" "$cport"; do
    port_busy "$p" && die "port $p on $HOST is already in use"
  done
  command -v kcat >/dev/null || die "kcat not found (deploy/setup.sh installs it)"
  echo "$port" >"$DIR/port"
  write_configs "$port" "$cport"

  if [[ ! -f $DIR/data/meta.properties ]]; then
    local cid
    cid=$(random_cluster_id)
    log "formatting $DIR/data (cluster id $cid)"
    tool_java kafka.tools.StorageTool format --standalone --ignore-formatted \
      --cluster-id "$cid" --config "$DIR/server.properties" >"$DIR/format.out" 2>&1 ||
      { cat "$DIR/format.out" >&2; die "storage format failed"; }
  fi

  log "starting broker on $HOST:$port (controller $HOST:$cport), logs in $DIR/broker.log"
  local t0=$SECONDS
  # setsid: the broker outlives this script and is not hit by signals sent to
  # the caller's process group (Ctrl-C in a test runner). The inner shell
  # writes its own pid and then execs java, so the pid file names the JVM.
  # shellcheck disable=SC2086  # heap flags are meant to be word-split
  nohup setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$DIR/broker.pid" \
    java ${QINFER_KAFKA_HEAP:--Xmx512m -Xms512m} \
      -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExplicitGCInvokesConcurrent \
      -Djava.awt.headless=true \
      -Dlog4j2.configurationFile="$DIR/log4j2.properties" \
      -cp "$LIBS/*" kafka.Kafka "$DIR/server.properties" \
    </dev/null >>"$DIR/broker.out" 2>&1 &

  local timeout=${QINFER_KAFKA_START_TIMEOUT:-90}
  while ((SECONDS - t0 < timeout)); do
    if pid=$(broker_pid); then
      if broker_ready; then
        log "broker ready after $((SECONDS - t0)) s (pid $pid)"
        bootstrap
        return 0
      fi
    elif [[ -s $DIR/broker.pid ]] && ! kill -0 "$(cat "$DIR/broker.pid")" 2>/dev/null; then
      break  # the JVM has exited
    fi
    sleep 0.5
  done
  if pid=$(broker_pid); then
    log "broker not ready after ${timeout} s; stopping it"
    kill -KILL "$pid" 2>/dev/null || true
  else
    log "broker exited during start"
  fi
  echo "---- $DIR/broker.out (tail)" >&2; tail -n 20 "$DIR/broker.out" >&2 || true
  echo "---- $DIR/broker.log (tail)" >&2; tail -n 40 "$DIR/broker.log" >&2 || true
  rm -f "$DIR/broker.pid"
  exit 1
}

cmd_stop() {
  if [[ -n ${1:-} && ! -d $1 ]]; then log "no broker running for $1"; return 0; fi
  set_dir "${1:-}"
  local pid
  if ! pid=$(broker_pid); then
    log "no broker running for $DIR"
    rm -f "$DIR/broker.pid"
    return 0
  fi
  log "stopping broker (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local timeout=${QINFER_KAFKA_STOP_TIMEOUT:-60} t0=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS - t0 >= timeout)); then
      log "still running after ${timeout} s; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  rm -f "$DIR/broker.pid"
  log "stopped after $((SECONDS - t0)) s"
}

cmd_status() {
  if [[ -n ${1:-} && ! -d $1 ]]; then echo "not running ($1)"; return 3; fi
  set_dir "${1:-}"
  local pid
  if pid=$(broker_pid); then
    if broker_ready; then
      echo "running (pid $pid), bootstrap $(bootstrap)"
    else
      echo "running (pid $pid), bootstrap $(bootstrap), not answering yet"
    fi
    return 0
  fi
  echo "not running ($DIR)"
  return 3
}

cmd_bootstrap() {
  set_dir "${1:-}"
  [[ -f $DIR/port ]] || die "no broker was ever started in $DIR"
  bootstrap
}

cmd_create_topic() {
  set_dir "${1:-}"
  shift || true
  (($# >= 2 && $# % 2 == 0)) || die "usage: create-topic DIR TOPIC PARTITIONS [TOPIC PARTITIONS ...]"
  kafka_libs
  broker_pid >/dev/null || die "no broker running for $DIR"
  local i
  for ((i = 2; i <= $#; i += 2)); do
    [[ ${!i} =~ ^[1-9][0-9]*$ ]] || die "bad partition count: ${!i}"
  done
  if (($# == 2)); then
    log "creating topic $1 ($2 partitions)"
    tool_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$(bootstrap)" \
      --create --if-not-exists --topic "$1" --partitions "$2" --replication-factor 1 >&2
    return
  fi
  # TopicCommand takes one topic per JVM (~1 s each). For several topics one
  # Admin-client call creates them all (~2 s in total); java runs the single
  # source file directly (JEP 330), so nothing needs building.
  log "creating topics: $*"
  cat >"$DIR/CreateTopics.java" <<'EOF'
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;

/** CreateTopics BOOTSTRAP TOPIC PARTITIONS [TOPIC PARTITIONS ...]; existing topics are fine. */
public class CreateTopics {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    List<NewTopic> topics = new ArrayList<>();
    for (int i = 1; i + 1 < args.length; i += 2)
      topics.add(new NewTopic(args[i], Integer.parseInt(args[i + 1]), (short) 1));
    int rc = 0;
    try (Admin admin = Admin.create(props)) {
      for (Map.Entry<String, KafkaFuture<Void>> e : admin.createTopics(topics).values().entrySet()) {
        try {
          e.getValue().get();
          System.err.println("Created topic " + e.getKey() + ".");
        } catch (ExecutionException ex) {
          if (ex.getCause() instanceof TopicExistsException) continue;
          System.err.println("Creating topic " + e.getKey() + " failed: " + ex.getCause());
          rc = 1;
        }
      }
    }
    System.exit(rc);
  }
}
EOF
  tool_java "$DIR/CreateTopics.java" "$(bootstrap)" "$@" >&2
}

case ${1:-} in
  start) shift; if [[ ${2:-} == auto ]]; then cmd_start_auto "$1"; else cmd_start "$@"; fi ;;
  stop) shift; cmd_stop "$@" ;;
  status) shift; cmd_status "$@" ;;
  bootstrap) shift; cmd_bootstrap "$@" ;;
  create-topic) shift; cmd_create_topic "$@" ;;
  -h|--help|help) usage ;;
  *) short_usage ;;
esac
