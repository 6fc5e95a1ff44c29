#!/usr/bin/env bash
# Makes sure a Slurm cluster answers on this machine, for Tests/slurm/run.sh.
#
# If `sinfo` already shows a usable node, this touches nothing (so a second run, or a real
# cluster, is left alone). Otherwise, as root, it sets up a one-node cluster the way CI
# needs it on a fresh Debian 12 machine with no systemd and no stdin:
#   - installs munge and slurm-wlm (apt-get) if missing;
#   - creates a munge key if there is none and starts munged as the munge user;
#   - writes /etc/slurm/slurm.conf (only if absent or written by this script before):
#     this host as controller and only node, root as SlurmUser, no cgroups (task/none,
#     proctrack/linuxproc), cores but not memory as consumables, so the array tasks'
#     default memory request (all of it) does not serialise them;
#   - starts slurmctld and slurmd if they are not running, and waits at most ~60 s for the
#     node to be idle and a one-second probe job to run.
# Daemons run in the background and stay up after the tests, so the next run is fast.
set -euo pipefail

log() { echo "slurm-cluster: $*"; }
die() { echo "slurm-cluster: FAILED: $*" >&2; exit 1; }

# A node that can take work: idle, mixed or allocated, and responding (sinfo marks a node
# whose slurmd is gone with a trailing `*`, e.g. `idle*`, until it times out).
node_ready() {
    timeout 10 sinfo -h -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed|allocated|completing)$'
}

# A job really runs: sinfo alone trusts the controller, which notices a dead slurmd only
# after SlurmdTimeout (minutes), while every array would wait for it.
job_runs() {
    timeout 30 srun --quiet --immediate=20 --time=1 --job-name=sweep-probe true </dev/null >/dev/null 2>&1
}

if command -v sinfo >/dev/null && node_ready && job_runs; then
    log "a cluster is already up: $(timeout 10 sinfo -h -o '%P %D %T %c CPUs' | head -1)"
    exit 0
fi

[ "$(id -u)" = 0 ] || die "no Slurm cluster answers, and setting one up needs root (run as root, or start a cluster first)"

# --- packages --------------------------------------------------------------
missing=$(for p in munge slurm-wlm; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"; done)
if [ -n "$missing" ]; then
    log "installing:" $missing
    export DEBIAN_FRONTEND=noninteractive
    # Another apt-get (a neighbour's build) may hold the lock for a while: wait for it.
    apt-get -o DPkg::Lock::Timeout=300 update -qq
    # Without systemd the packages cannot start their daemons; this script does, below.
    apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $missing >/dev/null </dev/null
fi

# --- munge -----------------------------------------------------------------
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
    log "creating a munge key"
    mungekey -c -f -k /etc/munge/munge.key
fi
chown munge:munge /etc/munge/munge.key
chmod 0600 /etc/munge/munge.key
if ! timeout 5 munge -n </dev/null 2>/dev/null | timeout 5 unmunge >/dev/null 2>&1; then
    log "starting munged"
    # A munged that died leaves its socket and pid file behind and would refuse to start.
    pgrep -x munged >/dev/null || rm -f /run/munge/munged.pid /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
    runuser -u munge -- /usr/sbin/munged
    for _ in $(seq 1 50); do
        timeout 5 munge -n </dev/null 2>/dev/null | timeout 5 unmunge >/dev/null 2>&1 && break
        sleep 0.2
    done
    timeout 5 munge -n </dev/null | timeout 5 unmunge >/dev/null || die "munged does not answer (see /var/log/munge/munged.log)"
fi

# --- slurm.conf ------------------------------------------------------------
marker="# Written by sweep's Tests/slurm/cluster.sh"
conf=/etc/slurm/slurm.conf
host=$(hostname -s)
if [ -e "$conf" ] && ! head -1 "$conf" | grep -qF "$marker"; then
    die "$conf exists and is not ours, but no node is usable (sinfo: $(timeout 10 sinfo -h -o '%N %T' 2>&1 | head -1)); start that cluster or move the file away"
fi
# The daemons talk over loopback, so a host name that DNS or /etc/hosts does not know is fine.
# slurmd -C measures this machine (CPUs, sockets, cores, threads). RealMemory is left out:
# memory is not a consumable here, and in a container the measured value can exceed the limit.
node=$(slurmd -C | head -1 | sed 's/ RealMemory=[0-9]*//')
[ -n "$node" ] && echo "$node" | grep -q "^NodeName=$host " || die "slurmd -C did not describe this host ($host): $node"
install -d -m 0755 /etc/slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
new=$(cat <<EOF
$marker: a one-node cluster for make test-slurm.
ClusterName=sweep-ci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
)
if [ ! -e "$conf" ] || [ "$(cat "$conf")" != "$new" ]; then
    log "writing $conf"
    printf '%s\n' "$new" > "$conf"
fi

# --- daemons ---------------------------------------------------------------
if ! pgrep -x slurmctld >/dev/null; then
    log "starting slurmctld"
    slurmctld </dev/null || die "slurmctld did not start (see /var/log/slurm/slurmctld.log)"
fi
if ! pgrep -x slurmd >/dev/null; then
    log "starting slurmd"
    slurmd </dev/null || die "slurmd did not start (see /var/log/slurm/slurmd.log)"
fi

deadline=$((SECONDS + 60))
while ((SECONDS < deadline)); do
    node_ready && job_runs && { log "node $host is $(timeout 10 sinfo -h -o '%T' | head -1)"; exit 0; }
    sleep 1
done
# A node the controller remembers as down from an earlier life: ReturnToService=2 should
# clear that on registration; if not, say so rather than resume it behind the user's back.
die "node $host not idle after 60 s (sinfo: $(timeout 10 sinfo -h -o '%N %T %E' 2>&1 | head -1)); see /var/log/slurm/"
