#!/bin/bash
# gs_gridengine.sh: a one-host Grid Engine for the TSUBAME job scripts' test
# (tests/jobs/gridengine_local.sh), from Debian's Son of Grid Engine 8.1.9 (gridengine-master,
# gridengine-exec, gridengine-client, installed with debconf preseeded as .ci/run does). Sourced
# by the test; by hand, as root: bash tests/jobs/gs_gridengine.sh up | down | status.
#   gs_ge_check     why this machine cannot run it (empty: it can): packages, root, the cell
#   gs_ge_up        idempotent: start sge_qmaster if it is not answering, configure (below), start
#                   sge_execd if it is not running, wait until the queue takes jobs. Sets
#                   GS_GE_STARTED to the daemons it started ("qmaster execd", or less).
#   gs_ge_down      stop the daemons named in GS_GE_STARTED
# The daemons do not start by themselves in a container (no systemd; policy-rc.d says no), and
# the cell as the package leaves it takes no job here. What this changes, and why:
#   host_aliases    this host's name resolves to 127.0.0.1, whose reverse name is localhost:
#                   without the alias every client is refused ("access denied ... localhost")
#   global config   min_uid/min_gid 0: the tests run as root and submit as root (Grid Engine
#                   refuses root jobs by default, and the queue goes to error state if this is
#                   changed after sge_execd started: then it restarts sge_execd); accounting
#                   flushed at once (qacct -j sees a job as it ends); shell_start_mode
#                   unix_behavior (the script's #! line runs it, as on TSUBAME)
#   scheduler       every second, and at each submit and finish (the default is every 15 s)
#   complexes       TSUBAME's resource types node_f, node_h, node_q, node_o, gpu_1, gpu_h:
#                   requestable integers, not consumable; this host offers 64 of each, so
#                   "-l node_f=2" is accepted and met (by this one host: TSUBAME gives whole
#                   nodes, which one host cannot stand in for)
#   PE mpi          64 slots, $fill_up, control_slaves TRUE (qrsh -inherit, which Open MPI uses
#                   to start its daemons on the job's other hosts)
#   queue all.q     this host, GS_GE_SLOTS slots (default 12: six 2-rank jobs at once), PE mpi,
#                   no load threshold (a busy 2-core machine would put it in alarm state),
#                   notify GS_GE_NOTIFY (default 00:00:30: SIGKILL that long after -notify's
#                   USR2), shell /bin/bash, shell_start_mode unix_behavior
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"

export SGE_ROOT=${SGE_ROOT:-/var/lib/gridengine} SGE_CELL=${SGE_CELL:-default}
PATH=$PATH:/usr/sbin:/sbin
gs_ge_cell=$SGE_ROOT/$SGE_CELL/common
GS_GE_STARTED=

gs_ge_check() {
  local c
  for c in sge_qmaster sge_execd qsub qstat qconf qacct qdel qrsh; do
    command -v $c >/dev/null 2>&1 || {
      echo "$c not found (Debian: apt-get install --no-install-recommends gridengine-master gridengine-exec gridengine-client)"
      return
    }
  done
  [ "$(id -u)" = 0 ] || { echo "needs root: sge_qmaster and sge_execd are started here"; return; }
  [ -s "$gs_ge_cell/act_qmaster" ] && [ -s "$gs_ge_cell/bootstrap" ] || echo "no Grid Engine cell in $gs_ge_cell (install with debconf's shared/gridengineconfig true: .ci/run shows how)"
}

gs_ge_log() { echo "gs_gridengine: $*" >&2; }
# gs_ge_daemon NAME: start a daemon with an environment of its own: what sge_execd has, jobs
# have too (a GPUSIM=... of the caller's would reach a job that was not given it)
gs_ge_daemon() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin SGE_ROOT="$SGE_ROOT" SGE_CELL="$SGE_CELL" "$1"; }
gs_ge_q() { timeout 20 "$@"; } # a client call; a daemon that stopped answering must not hang the test
gs_ge_master_up() { gs_ge_q qconf -sh >/dev/null 2>&1; }
gs_ge_host() { cat "$gs_ge_cell/act_qmaster"; }
gs_ge_execd_pid() { # the running sge_execd's pid, or nothing
  local f p
  for f in "$(gs_ge_q qconf -sconf global 2>/dev/null | awk '$1 == "execd_spool_dir" { print $2 }')"/*/execd.pid; do
    [ -s "$f" ] || continue
    p=$(cat "$f")
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = sge_execd ] && { echo "$p"; return; }
  done
}
gs_ge_qmaster_pid() {
  local p
  p=$(cat "$(awk '$1 == "qmaster_spool_dir" { print $2 }' "$gs_ge_cell/bootstrap")/qmaster.pid" 2>/dev/null)
  [ -n "$p" ] && [ "$(cat /proc/"$p"/comm 2>/dev/null)" = sge_qmaster ] && echo "$p"
}

# gs_ge_apply WHAT SHOW-COMMAND MODIFY-OPTION FILE: give an object FILE's settings, where they differ
gs_ge_apply() {
  local what=$1 show=$2 opt=$3 file=$4
  if ! diff -bq <($show 2>/dev/null | sed 's/\\$//' | tr -s ' \t' ' ' | sort) <(tr -s ' \t' ' ' <"$file" | sort) >/dev/null; then
    gs_ge_q qconf "$opt" "$file" >/dev/null 2>&1 || { gs_ge_log "qconf $opt $what failed"; return 1; }
    return 2
  fi
}

gs_ge_configure() {
  local h=$1 d rc=0 changed=no
  d=$(mktemp -d) || return 1
  # global: root jobs, accounting at once, the #! line. qconf -Mconf takes the object's name
  # from the file's.
  gs_ge_q qconf -sconf global | sed -e '/^#/d' -e ':a' -e '/\\$/N; s/\\\n */ /; ta' |
    awk '$1 == "min_uid" || $1 == "min_gid" { $2 = 0 }
      $1 == "shell_start_mode" { $2 = "unix_behavior" }
      $1 == "reporting_params" { $0 = "reporting_params accounting=true reporting=false flush_time=00:00:01 joblog=false sharelog=00:00:00 accounting_flush_time=00:00:00" }
      { print }' >"$d/global"
  gs_ge_q qconf -sconf global | sed -e '/^#/d' -e ':a' -e '/\\$/N; s/\\\n */ /; ta' >"$d/global.now"
  if ! diff -bq "$d/global.now" "$d/global" >/dev/null; then
    gs_ge_q qconf -Mconf "$d/global" >/dev/null 2>&1 || { rm -rf "$d"; return 1; }
    changed=yes
  fi
  gs_ge_q qconf -ssconf | awk '$1 == "schedule_interval" { $2 = "0:0:1" } $1 == "flush_submit_sec" || $1 == "flush_finish_sec" { $2 = 1 }
    $1 == "job_load_adjustments" { $2 = "NONE" } $1 == "load_adjustment_decay_time" { $2 = "0:0:0" } { print }' >"$d/sconf"
  gs_ge_q qconf -Msconf "$d/sconf" >/dev/null 2>&1 || rc=1
  # TSUBAME's resource types (name shortcut type relop requestable consumable default urgency)
  gs_ge_q qconf -sc | grep -v '^#' >"$d/centry"
  local t
  for t in node_f node_h node_q node_o gpu_1 gpu_h; do
    grep -q "^$t " "$d/centry" || echo "$t $t INT <= YES NO 0 0" >>"$d/centry"
  done
  gs_ge_q qconf -sc | grep -v '^#' | cmp -s - "$d/centry" || gs_ge_q qconf -Mc "$d/centry" >/dev/null 2>&1 || rc=1
  printf '%s\n' "pe_name mpi" "slots 64" "user_lists NONE" "xuser_lists NONE" "start_proc_args NONE" \
    "stop_proc_args NONE" "allocation_rule \$fill_up" "control_slaves TRUE" "job_is_first_task FALSE" \
    "urgency_slots min" "accounting_summary FALSE" "qsort_args NONE" >"$d/mpi"
  if gs_ge_q qconf -sp mpi >/dev/null 2>&1; then gs_ge_apply pe "qconf -sp mpi" -Mp "$d/mpi"; else gs_ge_q qconf -Ap "$d/mpi" >/dev/null 2>&1; fi
  [ $? = 1 ] && rc=1
  printf '%s\n' "hostname $h" "load_scaling NONE" \
    "complex_values node_f=64,node_h=64,node_q=64,node_o=64,gpu_1=64,gpu_h=64" "user_lists NONE" \
    "xuser_lists NONE" "projects NONE" "xprojects NONE" "usage_scaling NONE" "report_variables NONE" >"$d/exec"
  if gs_ge_q qconf -se "$h" >/dev/null 2>&1; then gs_ge_q qconf -Me "$d/exec" >/dev/null 2>&1; else gs_ge_q qconf -Ae "$d/exec" >/dev/null 2>&1; fi || rc=1
  gs_ge_q qconf -ss 2>/dev/null | grep -qx "$h" || gs_ge_q qconf -as "$h" >/dev/null 2>&1 || rc=1
  gs_ge_q qconf -sq | awk -v h="$h" -v s="${GS_GE_SLOTS:-12}" -v n="${GS_GE_NOTIFY:-00:00:30}" '
    $1 == "qname" { $2 = "all.q" } $1 == "hostlist" { $2 = h } $1 == "load_thresholds" { $2 = "NONE" }
    $1 == "pe_list" { $0 = "pe_list mpi" } $1 == "slots" { $2 = s } $1 == "shell" { $2 = "/bin/bash" }
    $1 == "shell_start_mode" { $2 = "unix_behavior" } $1 == "notify" { $2 = n }
    $1 == "qtype" { $0 = "qtype BATCH INTERACTIVE" } { print }' >"$d/queue"
  if gs_ge_q qconf -sq all.q >/dev/null 2>&1; then gs_ge_q qconf -Mq "$d/queue" >/dev/null 2>&1; else gs_ge_q qconf -Aq "$d/queue" >/dev/null 2>&1; fi || rc=1
  rm -rf "$d"
  [ $rc = 0 ] || return 1
  [ $changed = no ] || return 2
}

# gs_ge_queue_ready: the queue instance on this host takes jobs (no state: not unknown, alarm,
# error or disabled)
gs_ge_queue_ready() {
  gs_ge_q qstat -f -q all.q 2>/dev/null | awk -v q="all.q@$1" '$1 == q { found = 1; if (NF >= 6) bad = 1 } END { exit !(found && !bad) }'
}

gs_ge_up() {
  local h i rc why
  why=$(gs_ge_check)
  [ -z "$why" ] || { gs_ge_log "$why"; return 1; }
  h=$(gs_ge_host)
  # Every name this host goes by (the reverse of 127.0.0.1 is localhost) is the master's name.
  { echo "$h $(for n in localhost "$(hostname)" "$(hostname -s)"; do [ "$n" != "$h" ] && echo "$n"; done | sort -u | tr '\n' ' ')"; } \
    >"$gs_ge_cell/host_aliases.new" && mv "$gs_ge_cell/host_aliases.new" "$gs_ge_cell/host_aliases"
  if ! gs_ge_master_up; then
    [ -z "$(gs_ge_qmaster_pid)" ] || { gs_ge_log "sge_qmaster runs but does not answer"; return 1; }
    gs_ge_daemon sge_qmaster || { gs_ge_log "sge_qmaster did not start"; return 1; }
    GS_GE_STARTED=qmaster
    for i in $(seq 300); do gs_ge_master_up && break; sleep 0.1; done
    gs_ge_master_up || { gs_ge_log "sge_qmaster does not answer after 30 s"; return 1; }
  fi
  gs_ge_configure "$h"
  rc=$?
  [ $rc = 1 ] && { gs_ge_log "configuring the cell failed"; return 1; }
  if [ $rc = 2 ] && [ -n "$(gs_ge_execd_pid)" ]; then
    # sge_execd reads the global configuration (min_uid) when it starts
    gs_ge_log "the global configuration changed: restarting sge_execd"
    gs_ge_q qconf -ke "$h" >/dev/null 2>&1
    for i in $(seq 100); do [ -z "$(gs_ge_execd_pid)" ] && break; sleep 0.1; done
  fi
  if [ -z "$(gs_ge_execd_pid)" ]; then
    gs_ge_daemon sge_execd || { gs_ge_log "sge_execd did not start"; return 1; }
    GS_GE_STARTED=${GS_GE_STARTED:+$GS_GE_STARTED }execd
  fi
  gs_ge_q qmod -c "all.q@$h" >/dev/null 2>&1 # a queue left in error state by an earlier run
  for i in $(seq 600); do gs_ge_queue_ready "$h" && return 0; sleep 0.1; done
  gs_ge_log "queue all.q@$h not ready after 60 s:"
  gs_ge_q qstat -f >&2
  return 1
}

gs_ge_down() {
  local p i
  case " $GS_GE_STARTED " in *" execd "*)
    p=$(gs_ge_execd_pid)
    gs_ge_q qconf -ke "$(gs_ge_host)" >/dev/null 2>&1
    for i in $(seq 100); do [ -z "$p" ] || ! kill -0 "$p" 2>/dev/null && break; sleep 0.1; done
    [ -n "$p" ] && kill -0 "$p" 2>/dev/null && kill "$p"
    ;;
  esac
  case " $GS_GE_STARTED " in *" qmaster "*)
    p=$(gs_ge_qmaster_pid)
    gs_ge_q qconf -km >/dev/null 2>&1
    for i in $(seq 100); do [ -z "$p" ] || ! kill -0 "$p" 2>/dev/null && break; sleep 0.1; done
    [ -n "$p" ] && kill -0 "$p" 2>/dev/null && kill "$p"
    ;;
  esac
  GS_GE_STARTED=
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case ${1:-} in
    up) gs_ge_up && echo "Grid Engine up (started: ${GS_GE_STARTED:-none})" ;;
    down) GS_GE_STARTED="qmaster execd" gs_ge_down ;;
    status) why=$(gs_ge_check); echo "${why:-usable here}"; gs_ge_master_up && qstat -f ;;
    *) echo "usage: $0 up | down | status" >&2; exit 2 ;;
  esac
fi
