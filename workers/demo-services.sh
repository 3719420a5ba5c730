#!/usr/bin/env bash
# Starts and stops the long-running processes of `make demo`: the Tencent Cloud simulator,
# gunicorn, the Celery worker, Celery beat and the mail catcher (a loopback SMTP server that
# writes each message the demo sends to VAR/mail/*.eml: workers/mail_catcher.py).
#
#   workers/demo-services.sh start simulator|web|worker|beat|mail ...   start them, wait until ready
#   workers/demo-services.sh stop                                   stop them, check the ports
#
# Settings from the environment: VAR (default var: pid and port files in VAR/run, logs in
# VAR/log; the services get VAR_DIR=VAR), PORT (8000; also the port of e-mailed links),
# SIMULATOR_PORT (8900), MAIL_PORT (8825), VENV_BIN (.venv/bin), STOP_TIMEOUT (seconds from
# SIGTERM to SIGKILL, 20), READY_TIMEOUT (seconds, 120).
# The caller provides the rest of the services' environment (make demo sources var/demo.env).
#
# Why a session per service: a pid file holding the pid of a wrapping shell stops the shell and
# leaves the server running. Here every service runs in its own session (setsid), whose leader
# writes its own pid (and start time) to VAR/run/NAME.pid and then execs the service, so the pid
# file names the real process and its process group holds every child the service forks
# (gunicorn's workers, Celery's pool). `stop` signals the group and waits until no member is
# left, so a stopped demo leaves nothing behind and the next `make demo` finds its ports free.
set -euo pipefail

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
ROOT="$(dirname "$(dirname "$SELF")")"
VAR="${VAR:-var}"
mkdir -p "$VAR"
VAR="$(cd "$VAR" && pwd)"
RUN="$VAR/run"
LOG="$VAR/log"
PORT="${PORT:-8000}"
SIMULATOR_PORT="${SIMULATOR_PORT:-8900}"
MAIL_PORT="${MAIL_PORT:-8825}"
# The services see PORT: unless PUBLIC_URL is set, their e-mails link to http://localhost:PORT
# (config/settings.py), the web server this script starts.
export PORT
VENV_BIN="${VENV_BIN:-$ROOT/.venv/bin}"
STOP_TIMEOUT="${STOP_TIMEOUT:-20}"
READY_TIMEOUT="${READY_TIMEOUT:-120}"
# Stopped in this order: the web first (no new requests), the mail catcher after the worker (it
# may still be sending), the simulator last (syncs need it).
SERVICES=(web worker beat mail simulator)

fail() {
  echo "demo-services: $*" >&2
  exit 1
}

# --- processes ------------------------------------------------------------------------------

# The start time of a process (clock ticks since boot, field 22 of /proc/PID/stat): with the pid
# it identifies one process, even after the pid number is reused.
start_time_of() {
  local line fields
  { read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
  # The command name (field 2) may contain spaces and parentheses; the fields after it do not.
  read -ra fields <<<"${line##*) }"
  echo "${fields[19]}"
}

# The live members of process group $1. Zombies do not count: nothing may reap them here (the
# services' parent is PID 1 once the starting shell is gone), and they hold no port or file.
members_of_group() {
  local stat line fields pid
  for stat in /proc/[0-9]*/stat; do
    { read -r line <"$stat"; } 2>/dev/null || continue
    read -ra fields <<<"${line##*) }"
    if [[ "${fields[2]}" == "$1" && "${fields[0]}" != Z ]]; then
      pid="${stat#/proc/}"
      echo "${pid%/stat}"
    fi
  done
}

# The process group recorded in VAR/run/$1.pid, if that group may still have members; removes a
# pid file that names a process which has since gone and whose pid was reused.
recorded_group() {
  local name="$1" pid_file="$RUN/$1.pid" pid started current
  [[ -f "$pid_file" ]] || return 1
  read -r pid started <"$pid_file" || true
  if [[ -z "${started:-}" ]]; then
    # Written by an older `make demo`: the pid of the wrapping shell, not of the service.
    echo "demo-services: $pid_file is from an older make demo and names no service; ignored" >&2
    rm -f "$pid_file"
    return 1
  fi
  if current="$(start_time_of "$pid")" && [[ "$current" != "$started" ]]; then
    # Another process has this pid now. The kernel does not hand out a pid that is still some
    # group's id, so the recorded group is empty.
    rm -f "$pid_file"
    return 1
  fi
  echo "$pid"
}

# --- ports ----------------------------------------------------------------------------------

port_is_listening() {
  if command -v ss >/dev/null; then
    [[ -n "$(ss -Hltn "sport = :$1")" ]]
  else
    (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null
  fi
}

# Names the processes listening on port $1, as far as the tools at hand can tell.
describe_port_holders() {
  local pids=""
  if command -v ss >/dev/null; then
    pids="$(ss -Hltnp "sport = :$1" | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u | paste -sd, -)"
  elif command -v lsof >/dev/null; then
    pids="$(lsof -t -iTCP:"$1" -sTCP:LISTEN 2>/dev/null | sort -u | paste -sd, -)"
  elif command -v fuser >/dev/null; then
    pids="$(fuser -n tcp "$1" 2>/dev/null | tr -s ' ' '\n' | grep . | paste -sd, -)"
  fi
  if [[ -n "$pids" ]]; then
    ps -o pid=,args= -p "$pids" | sed 's/^ */    pid /' >&2
  else
    echo "    (neither ss, lsof nor fuser could tell which process holds it)" >&2
  fi
}

# Fails, naming what holds it, if one of the given ports is taken.
require_free_ports() {
  local port taken=0
  for port in "$@"; do
    if port_is_listening "$port"; then
      echo "demo-services: port $port is still taken, by:" >&2
      describe_port_holders "$port"
      taken=1
    fi
  done
  if ((taken)); then
    fail "the demo needs these ports: stop what holds them (kill PID), or choose others" \
      "(make demo PORT=... SIMULATOR_PORT=...)"
  fi
}

# --- stop -----------------------------------------------------------------------------------

# SIGTERM goes to each service's main process first: gunicorn and Celery then stop their own
# children gracefully (a Celery worker finishes its running tasks; a child signalled directly
# would die mid-task). Whatever is left once the main process is gone gets SIGTERM, and every
# member still alive STOP_TIMEOUT seconds after the start gets SIGKILL.
stop_services() {
  local name pgid members tenths=0
  local -A groups=() leftovers_signalled=()
  for name in "${SERVICES[@]}"; do
    if pgid="$(recorded_group "$name")"; then
      groups[$name]="$pgid"
      kill -TERM "$pgid" 2>/dev/null || true
    fi
  done
  while ((${#groups[@]})); do
    for name in "${SERVICES[@]}"; do
      pgid="${groups[$name]:-}"
      [[ -n "$pgid" ]] || continue
      members="$(members_of_group "$pgid")"
      if [[ -z "$members" ]]; then
        echo "stopped $name (process group $pgid)"
        rm -f "$RUN/$name.pid"
        unset "groups[$name]"
      elif ((tenths > STOP_TIMEOUT * 10 + 50)); then
        echo "demo-services: $name survived SIGKILL:" >&2
        ps -o pid=,stat=,args= -p "$(paste -sd, - <<<"$members")" >&2 || true
        fail "could not stop $name (process group $pgid)"
      elif ((tenths >= STOP_TIMEOUT * 10)); then
        ((tenths > STOP_TIMEOUT * 10)) ||
          echo "demo-services: $name did not exit within ${STOP_TIMEOUT}s of SIGTERM; sending SIGKILL" >&2
        kill -KILL -- "-$pgid" 2>/dev/null || true
      elif ! grep -qx "$pgid" <<<"$members" && [[ -z "${leftovers_signalled[$name]:-}" ]]; then
        kill -TERM -- "-$pgid" 2>/dev/null || true
        leftovers_signalled[$name]=1
      fi
    done
    ((${#groups[@]})) || break
    sleep 0.1
    tenths=$((tenths + 1))
  done
  # The ports the stopped services were started on (make stop may be run without PORT=...),
  # and the ones configured now, which the next make demo needs.
  local -a ports=("$PORT" "$SIMULATOR_PORT" "$MAIL_PORT")
  local port_file
  for port_file in "$RUN"/*.port; do
    [[ -f "$port_file" ]] || continue
    ports+=("$(<"$port_file")")
    rm -f "$port_file"
  done
  require_free_ports $(printf '%s\n' "${ports[@]}" | sort -nu)
}

# --- start ----------------------------------------------------------------------------------

port_of() {
  case "$1" in
    web) echo "$PORT" ;;
    simulator) echo "$SIMULATOR_PORT" ;;
    mail) echo "$MAIL_PORT" ;;
  esac
}

launch() {
  local name="$1" pid_file="$RUN/$1.pid" pgid port
  local -a command
  # The commands of docker-compose.yml (tests/test_compose.py keeps them the same), found in
  # VENV_BIN, which leads the PATH.
  case "$name" in
    simulator) command=(python manage.py tencent_simulator --port "$SIMULATOR_PORT" --seed 1) ;;
    web)
      command=(gunicorn config.wsgi --config config/gunicorn.conf.py --bind "127.0.0.1:$PORT" --workers 2 --threads 4
        --access-logfile "$LOG/web-access.log")
      ;;
    worker) command=(workers/start-worker.sh) ;;
    beat) command=(workers/start-beat.sh) ;;
    mail) command=(python -m workers.mail_catcher --port "$MAIL_PORT" --dir "$VAR/mail") ;;
    *) fail "unknown service '$name' (known: ${SERVICES[*]})" ;;
  esac
  if pgid="$(recorded_group "$name")" && [[ -n "$(members_of_group "$pgid")" ]]; then
    fail "$name is already running (process group $pgid); run make stop first"
  fi
  rm -f "$pid_file"
  port="$(port_of "$name")"
  [[ -z "$port" ]] || echo "$port" >"$RUN/$name.port"
  PATH="$VENV_BIN:$PATH" VAR_DIR="$VAR" setsid "$SELF" exec-recorded "$pid_file" "${command[@]}" \
    >"$LOG/$name.log" 2>&1 </dev/null &
}

# Succeeds once service $1 serves; fails if its process group has no live member left.
wait_until_ready() {
  local name="$1" pgid="" deadline=$((SECONDS + READY_TIMEOUT))
  while ((SECONDS < deadline)); do
    if [[ -z "$pgid" && -f "$RUN/$name.pid" ]]; then
      read -r pgid _ <"$RUN/$name.pid" || pgid=""
    fi
    if [[ -n "$pgid" && -z "$(members_of_group "$pgid")" ]]; then
      echo "demo-services: $name exited during its start; the end of $LOG/$name.log:" >&2
      tail -n 20 "$LOG/$name.log" >&2
      return 1
    fi
    if [[ -n "$pgid" ]] && is_ready "$name"; then
      echo "started $name (process group $pgid)"
      return 0
    fi
    sleep 0.25
  done
  echo "demo-services: $name was not ready within ${READY_TIMEOUT}s; see $LOG/$name.log" >&2
  return 1
}

is_ready() {
  case "$1" in
    simulator) port_is_listening "$SIMULATOR_PORT" ;;
    mail) port_is_listening "$MAIL_PORT" ;;
    web) curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" ;;
    # Celery logs these lines once the worker consumes and beat ticks.
    worker) grep -q ' ready\.' "$LOG/worker.log" ;;
    beat) grep -q 'beat: Starting' "$LOG/beat.log" ;;
  esac
}

start_services() {
  local name port
  (($#)) || fail "start which services? (${SERVICES[*]})"
  mkdir -p "$RUN" "$LOG"
  for name in "$@"; do
    port="$(port_of "$name")"
    [[ -z "$port" ]] || require_free_ports "$port"
  done
  for name in "$@"; do
    launch "$name"
  done
  for name in "$@"; do
    wait_until_ready "$name" || fail "$name did not start (make stop stops what did)"
  done
}

cd "$ROOT"
case "${1:-}" in
  start) start_services "${@:2}" ;;
  stop) stop_services ;;
  exec-recorded)
    # Runs as the new session's leader: record this very process, then become the service.
    pid_file="$2"
    echo "$$ $(start_time_of $$)" >"$pid_file.tmp"
    mv "$pid_file.tmp" "$pid_file"
    exec "${@:3}"
    ;;
  *) fail "usage: $0 start SERVICE... | stop" ;;
esac
