#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, for running the workflow through
# snakemake-executor-plugin-slurm (profile workflows/profiles/slurm) without a real cluster.
#
#   bash .ci/slurm_localhost.sh start    # install slurm-wlm + munge if missing (root), write the
#                                        # config, start munged, slurmctld, slurmd, wait for idle
#   eval "$(bash .ci/slurm_localhost.sh env)"   # put the SLURM commands of this cluster on PATH
#   bash .ci/slurm_localhost.sh status   # daemons and `sinfo`
#   bash .ci/slurm_localhost.sh stop     # cancel its jobs, stop the daemons it started (pid files)
#
# Then, with the project's venv active:
#   snakemake --profile workflows/profiles/slurm --configfile workflows/config/smoke.yaml
#
# Everything lives in $SLURM_LOCALHOST_DIR (default /tmp/slurm-localhost): slurm.conf, its own
# munge key and socket, state, spool, logs, pid files, and bin/ with wrappers of the client
# commands (sbatch, srun, squeue, ...) that set SLURM_CONF. The wrappers are needed because
# nothing is written to /etc/slurm, and the slurm-jobstep plugin removes SLURM_CONF from the
# environment of the `srun` that it runs inside each job; PATH is kept, so srun on PATH must
# find the config by itself.
#
# Needs root (daemons, apt). No network is used when slurm-wlm and munge are installed.
# No accounting database: `sacct` answers "accounting storage is disabled", so the profile
# polls job states with `squeue` (MinJobAge=600 keeps finished jobs visible for 10 minutes).
# Environment: SLURM_LOCALHOST_DIR, SLURM_LOCALHOST_MEM_MB (node memory, default
# min(4096, half the RAM)), SLURM_LOCALHOST_PORT (slurmctld port, default 6817; slurmd uses +1),
# SLURM_LOCALHOST_TIMEOUT (seconds to wait for the node to become idle, default 60).
set -euo pipefail

DIR="${SLURM_LOCALHOST_DIR:-/tmp/slurm-localhost}"
CONF="$DIR/slurm.conf"
PORT="${SLURM_LOCALHOST_PORT:-6817}"
TIMEOUT="${SLURM_LOCALHOST_TIMEOUT:-60}"
MUNGE_SOCKET="$DIR/munge-socket/munge.socket"
CLIENTS="sbatch srun salloc squeue sinfo scontrol scancel sacct sacctmgr sshare sstat sprio sattach"

STARTING=0
die() {
    # a failed start leaves nothing running: stop what is up (its logs stay in $DIR/log)
    if [ "$STARTING" = 1 ]; then STARTING=0; stop >/dev/null 2>&1 || true; fi
    echo "slurm_localhost: $*" >&2
    exit 1
}
say() { echo "slurm_localhost: $*" >&2; }

# pid from a pid file if that process is alive and is the named program, else nothing.
live_pid() {
    local pidfile="$1" name="$2" pid comm
    [ -r "$pidfile" ] || return 1
    pid="$(tr -dc '0-9' < "$pidfile")"
    [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
    comm="$(cat "/proc/$pid/comm" 2>/dev/null || true)"
    case "$comm" in "$name"*) echo "$pid" ;; *) return 1 ;; esac
}

have_slurm() {
    local c
    for c in slurmctld slurmd munged munge sbatch srun squeue sinfo scontrol scancel; do
        command -v "$c" >/dev/null 2>&1 || return 1
    done
}

install_slurm() {
    have_slurm && return 0
    [ "$(id -u)" = 0 ] || die "cannot start SLURM: slurm-wlm/munge are not installed and installing them needs root"
    command -v apt-get >/dev/null 2>&1 || die "cannot start SLURM: slurm-wlm/munge are not installed and apt-get is unavailable"
    say "installing slurm-wlm and munge with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q slurm-wlm munge > "$DIR/log/apt-get.log" 2>&1; then
        apt-get update -q >> "$DIR/log/apt-get.log" 2>&1 || die "cannot start SLURM: apt-get update failed (see $DIR/log/apt-get.log)"
        apt-get install -y -q slurm-wlm munge >> "$DIR/log/apt-get.log" 2>&1 \
            || die "cannot start SLURM: apt-get install slurm-wlm munge failed (see $DIR/log/apt-get.log)"
    fi
    have_slurm || die "cannot start SLURM: slurm-wlm installed but its programs are not found"
}

port_busy() {
    command -v ss >/dev/null 2>&1 || return 1
    ss -ltnH "sport = :$1" 2>/dev/null | grep -q .
}

node_line() {
    # Hardware as slurmd sees it (CPUs, sockets, cores, threads), memory capped small.
    local host="$1" hw mem total
    total=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 ))
    mem="${SLURM_LOCALHOST_MEM_MB:-$(( total / 2 < 4096 ? total / 2 : 4096 ))}"
    hw="$(slurmd -C 2>/dev/null | head -n 1 | tr ' ' '\n' \
        | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ' || true)"
    [ -n "$hw" ] || hw="CPUs=$(nproc) "
    echo "NodeName=$host NodeAddr=127.0.0.1 ${hw}RealMemory=$mem State=UNKNOWN"
}

write_config() {
    local host="$1"
    mkdir -p "$DIR"/{state,spool/slurmd,log,run,bin,munge-key,munge-socket}
    chmod 700 "$DIR/munge-key"
    chmod 755 "$DIR/munge-socket"   # munged needs the socket's folder world-executable
    cat > "$CONF.new" <<EOF
# Written by .ci/slurm_localhost.sh: a one-node cluster on localhost, no accounting, no cgroups.
ClusterName=localhost
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/slurmd
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
# squeue shows finished jobs this long (the executor plugin polls with squeue)
MinJobAge=600
$(node_line "$host")
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    mv "$CONF.new" "$CONF"
    local c real syspath
    syspath="$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$DIR/bin" | paste -sd: -)"
    for c in $CLIENTS; do
        real="$(PATH="$syspath" command -v "$c" 2>/dev/null || true)"
        [ -n "$real" ] || continue
        printf '#!/bin/sh\n# this localhost cluster'"'"'s %s (see .ci/slurm_localhost.sh)\nSLURM_CONF=%s\nexport SLURM_CONF\nexec %s "$@"\n' \
            "$c" "$CONF" "$real" > "$DIR/bin/$c.new"
        chmod 755 "$DIR/bin/$c.new"
        mv "$DIR/bin/$c.new" "$DIR/bin/$c"
    done
}

node_state() {
    SLURM_CONF="$CONF" sinfo -h -n "$1" -o '%T' 2>/dev/null | head -n 1 || true
}

start() {
    PATH="$PATH:/usr/sbin:/sbin"
    local host pid state i
    host="$(hostname -s 2>/dev/null || hostname)"
    [ -n "$host" ] || die "cannot start SLURM: no hostname"
    mkdir -p "$DIR/log"
    STARTING=1
    local all_running=1
    live_pid "$DIR/run/munged.pid" munged >/dev/null || all_running=0
    live_pid "$DIR/run/slurmctld.pid" slurmctld >/dev/null || all_running=0
    live_pid "$DIR/run/slurmd.pid" slurmd >/dev/null || all_running=0
    if [ "$all_running" = 0 ]; then
        [ "$(id -u)" = 0 ] || die "cannot start SLURM: not root (slurmd and apt-get need root)"
        if ! live_pid "$DIR/run/slurmctld.pid" slurmctld >/dev/null && port_busy "$PORT"; then
            die "cannot start SLURM: port $PORT is in use (another slurmctld?); set SLURM_LOCALHOST_PORT"
        fi
        if ! live_pid "$DIR/run/slurmd.pid" slurmd >/dev/null && port_busy "$((PORT + 1))"; then
            die "cannot start SLURM: port $((PORT + 1)) is in use (another slurmd?); set SLURM_LOCALHOST_PORT"
        fi
        install_slurm
        write_config "$host"
    fi

    # munged, with a key and socket of its own
    if ! live_pid "$DIR/run/munged.pid" munged >/dev/null; then
        if [ ! -s "$DIR/munge-key/munge.key" ]; then
            ( umask 077; dd if=/dev/urandom of="$DIR/munge-key/munge.key" bs=1024 count=1 2>/dev/null )
        fi
        chmod 400 "$DIR/munge-key/munge.key"
        rm -f "$MUNGE_SOCKET" "$MUNGE_SOCKET.lock"
        munged --key-file="$DIR/munge-key/munge.key" --socket="$MUNGE_SOCKET" \
            --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
            --seed-file="$DIR/munge-key/munged.seed" 2>> "$DIR/log/munged.log" \
            || die "cannot start SLURM: munged failed ($(tail -n 1 "$DIR/log/munged.log"))"
    fi
    munge -S "$MUNGE_SOCKET" -n 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1 \
        || die "cannot start SLURM: munge credentials do not round-trip (see $DIR/log/munged.log)"

    if ! live_pid "$DIR/run/slurmctld.pid" slurmctld >/dev/null; then
        # the node's state comes from slurm.conf: drop a saved one (a drain from an earlier
        # config would outlive the config otherwise); saved jobs are kept
        rm -f "$DIR/state/node_state" "$DIR/state/node_state.old"
        slurmctld -f "$CONF" 2>> "$DIR/log/slurmctld.log" \
            || die "cannot start SLURM: slurmctld failed ($(tail -n 1 "$DIR/log/slurmctld.log"))"
        for i in $(seq 1 "$TIMEOUT"); do
            SLURM_CONF="$CONF" scontrol ping 2>/dev/null | grep -q UP && break
            live_pid "$DIR/run/slurmctld.pid" slurmctld >/dev/null || [ "$i" -lt 3 ] \
                || die "cannot start SLURM: slurmctld exited ($(tail -n 1 "$DIR/log/slurmctld.log"))"
            sleep 1
        done
    fi
    if ! live_pid "$DIR/run/slurmd.pid" slurmd >/dev/null; then
        slurmd -f "$CONF" 2>> "$DIR/log/slurmd.log" \
            || die "cannot start SLURM: slurmd failed ($(tail -n 1 "$DIR/log/slurmd.log"))"
    fi

    for i in $(seq 1 "$TIMEOUT"); do
        state="$(node_state "$host")"
        case "$state" in
            idle|mixed|allocated) break ;;
        esac
        if [ "$i" -gt 3 ]; then
            live_pid "$DIR/run/slurmctld.pid" slurmctld >/dev/null \
                || die "cannot start SLURM: slurmctld exited ($(tail -n 1 "$DIR/log/slurmctld.log"))"
            live_pid "$DIR/run/slurmd.pid" slurmd >/dev/null \
                || die "cannot start SLURM: slurmd exited ($(tail -n 1 "$DIR/log/slurmd.log"))"
        fi
        sleep 1
    done
    case "$state" in
        idle|mixed|allocated) ;;
        *) die "cannot start SLURM: node $host is '${state:-unknown}' after ${TIMEOUT}s ($(SLURM_CONF="$CONF" scontrol show node "$host" 2>/dev/null | grep -o 'Reason=.*' || tail -n 1 "$DIR/log/slurmd.log"))" ;;
    esac
    STARTING=0
    say "SLURM is up: node $host $state, config $CONF"
    say "use it with: eval \"\$(bash $0 env)\""
}

stop() {
    local name pid i jobs
    if live_pid "$DIR/run/slurmctld.pid" slurmctld >/dev/null; then
        # cancel this cluster's jobs, so no job step outlives the daemons
        jobs="$(SLURM_CONF="$CONF" squeue -h -t PENDING,RUNNING,SUSPENDED,COMPLETING -o '%i' 2>/dev/null || true)"
        if [ -n "$jobs" ]; then
            # shellcheck disable=SC2086
            SLURM_CONF="$CONF" scancel $jobs 2>/dev/null || true
            for i in $(seq 1 15); do
                [ -z "$(SLURM_CONF="$CONF" squeue -h -o '%i' -t PENDING,RUNNING,SUSPENDED,COMPLETING 2>/dev/null || true)" ] && break
                sleep 1
            done
        fi
    fi
    for name in slurmd slurmctld munged; do
        if pid="$(live_pid "$DIR/run/$name.pid" "$name")"; then
            kill -TERM "$pid" 2>/dev/null || true
            for i in $(seq 1 20); do
                [ -d "/proc/$pid" ] || break
                sleep 0.5
            done
            if [ -d "/proc/$pid" ]; then
                say "$name ($pid) did not stop on TERM; sending KILL"
                kill -KILL "$pid" 2>/dev/null || true
            fi
            say "stopped $name ($pid)"
        fi
        rm -f "$DIR/run/$name.pid"
    done
}

status() {
    local name pid rc=0
    for name in munged slurmctld slurmd; do
        if pid="$(live_pid "$DIR/run/$name.pid" "$name")"; then
            echo "$name: running ($pid)"
        else
            echo "$name: stopped"; rc=1
        fi
    done
    [ "$rc" = 0 ] && SLURM_CONF="$CONF" sinfo
    return "$rc"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    env)
        # shellcheck disable=SC2016  # $PATH is for the shell that evals this
        printf 'export PATH=%q:"$PATH"\nexport SLURM_CONF=%q\n' "$DIR/bin" "$CONF" ;;
    *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
