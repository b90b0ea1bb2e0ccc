#!/usr/bin/env bash
# Start a real single-node Slurm cluster (Debian's slurm-wlm + munge) on this machine, for the dask-jobqueue test.
#
# Why a script and not a mock: `hpceval run --cluster slurm` must be shown submitting real worker jobs through
# sbatch and Slurm must record them. Accounting through slurmdbd needs a database, so this cluster keeps none
# (AccountingStorageType=accounting_storage/none) and records finished jobs in a jobcomp text file instead.
#
#   .ci/slurm-up.sh DIR     writes DIR/slurm.conf, starts munged (if not running), slurmctld and slurmd, waits
#                           until the node is idle; prints `export SLURM_CONF=DIR/slurm.conf`
#   .ci/slurm-up.sh --down DIR   stops the slurmctld and slurmd started for DIR (by their pid files)
# Needs root (apt-get install slurm-wlm munge). The jobcomp record is DIR/jobcomp.txt.
set -euo pipefail
if [ "${1:-}" = "--down" ]; then
  dir=$2
  for d in slurmd slurmctld; do
    [ -f "$dir/$d.pid" ] && kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
  done
  exit 0
fi
dir=${1:?usage: slurm-up.sh DIR}
mkdir -p "$dir/state" "$dir/spool"
command -v slurmctld >/dev/null && command -v slurmd >/dev/null || { echo "slurm-wlm is not installed" >&2; exit 3; }
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
port=${SLURM_TEST_PORT:-16817}
cat > "$dir/slurm.conf" <<CONF
ClusterName=hpceval-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
if ! pgrep -x munged >/dev/null; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  [ -s /etc/munge/munge.key ] || mungekey --create
  runuser -u munge -- munged
fi
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  state=$(sinfo -h -N -o %T 2>/dev/null | head -1 || true)
  [ "$state" = "idle" ] && break
  sleep 1
done
[ "$state" = "idle" ] || { echo "slurm node not idle (state: ${state:-none}); logs in $dir" >&2; tail -5 "$dir"/*.log >&2; exit 1; }
echo "export SLURM_CONF=$SLURM_CONF"
