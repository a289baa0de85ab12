# A private Slurm cluster on this machine for tests: a munged with its own socket and key,
# slurmctld and one slurmd per node (`slurmd -N bN`, Slurm's multiple-slurmd setup: every node
# has NodeHostname=<this host> and its own Port), all from one slurm.conf in a temporary
# directory. Source it, then: cluster_start DIR NODE...; cluster_stop (also on EXIT). A node's
# Slurm features (slurm.conf Features=, what `sbatch --constraint` matches) come from the
# associative array CLUSTER_FEATURES, when the caller declares it: CLUSTER_FEATURES[b1]=agx-orin.
# Further slurm.conf lines come from the array CLUSTER_CONF_EXTRA, when the caller declares it:
# CLUSTER_CONF_EXTRA=(FirstJobId=4711).
# Daemons run in the foreground (-D/-F) as children of this shell, so that their ids are known
# and every one is ended, whatever ends the test.

cluster_pids=()

cluster_fail() { echo "cluster: $*" >&2; return 1; }

# A free TCP port at or above $1 (ss lists the listening ones).
cluster_free_port() {
  local port=$1
  while ss -Htln "sport = :$port" 2>/dev/null | grep -q .; do port=$((port + 1)); done
  echo "$port"
}

cluster_wait() {  # cluster_wait SECONDS COMMAND...: until COMMAND succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

cluster_start_slurmd() {  # cluster_start_slurmd NODE
  slurmd -D -N "$1" -f "$CLUSTER_DIR/slurm.conf" >>"$CLUSTER_DIR/slurmd-$1.console" 2>&1 &
  eval "cluster_slurmd_$1=$!"
  cluster_pids+=($!)
}

cluster_start() {  # cluster_start DIR NODE... (exports SLURM_CONF)
  CLUSTER_DIR=$1; shift
  CLUSTER_NODES=("$@")
  local host base port node
  host=$(hostname -s)
  mkdir -p "$CLUSTER_DIR/state" "$CLUSTER_DIR/munge"
  chmod 700 "$CLUSTER_DIR/munge"
  dd if=/dev/urandom of="$CLUSTER_DIR/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$CLUSTER_DIR/munge/munge.key"
  munged -F --force -S "$CLUSTER_DIR/munge/sock" --key-file "$CLUSTER_DIR/munge/munge.key" \
    --pid-file "$CLUSTER_DIR/munge/munged.pid" --log-file "$CLUSTER_DIR/munge/munged.log" \
    --seed-file "$CLUSTER_DIR/munge/seed" >>"$CLUSTER_DIR/munged.console" 2>&1 &
  cluster_pids+=($!)
  cluster_wait 10 test -S "$CLUSTER_DIR/munge/sock" || { cluster_fail "munged did not start: $(tail -3 "$CLUSTER_DIR/munge/munged.log" 2>/dev/null)"; return 1; }

  base=$(cluster_free_port $((17000 + RANDOM % 20000)))
  {
    echo "ClusterName=jetchartest"
    echo "SlurmctldHost=$host"
    echo "SlurmctldPort=$base"
    echo "AuthType=auth/munge"
    # cred_expire: a requeued job waits that long before it may start again (slurm.conf(5); 120 s
    # by default), and the fleet test waits for the requeue after its crash.
    echo "AuthInfo=socket=$CLUSTER_DIR/munge/sock,cred_expire=10"
    echo "CredType=cred/munge"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "StateSaveLocation=$CLUSTER_DIR/state"
    echo "SlurmdSpoolDir=$CLUSTER_DIR/spool-%n"
    echo "SlurmctldPidFile=$CLUSTER_DIR/slurmctld.pid"
    echo "SlurmdPidFile=$CLUSTER_DIR/slurmd-%n.pid"
    echo "SlurmctldLogFile=$CLUSTER_DIR/slurmctld.log"
    echo "SlurmdLogFile=$CLUSTER_DIR/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SelectType=select/linear"
    echo "SchedulerType=sched/builtin"
    echo "MpiDefault=none"
    echo "ReturnToService=2"
    echo "SlurmdTimeout=6"
    echo "SlurmctldTimeout=10"
    echo "MessageTimeout=5"
    echo "InactiveLimit=0"
    echo "MinJobAge=300"
    echo "JobRequeue=1"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "SchedulerParameters=sched_interval=1"
    if declare -p CLUSTER_CONF_EXTRA >/dev/null 2>&1; then printf '%s\n' "${CLUSTER_CONF_EXTRA[@]}"; fi
    port=$((base + 1))
    for node in "${CLUSTER_NODES[@]}"; do
      port=$(cluster_free_port "$port")
      local features=""
      if declare -p CLUSTER_FEATURES >/dev/null 2>&1 && [ -n "${CLUSTER_FEATURES[$node]:-}" ]; then
        features=" Features=${CLUSTER_FEATURES[$node]}"
      fi
      echo "NodeName=$node NodeHostname=$host Port=$port CPUs=1 RealMemory=500$features State=UNKNOWN"
      port=$((port + 1))
    done
    echo "PartitionName=boards Nodes=$(IFS=,; echo "${CLUSTER_NODES[*]}") Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE"
  } >"$CLUSTER_DIR/slurm.conf"
  export SLURM_CONF="$CLUSTER_DIR/slurm.conf"

  slurmctld -D -f "$SLURM_CONF" >>"$CLUSTER_DIR/slurmctld.console" 2>&1 &
  cluster_pids+=($!)
  cluster_wait 20 scontrol ping || { cluster_fail "slurmctld did not answer: $(tail -5 "$CLUSTER_DIR/slurmctld.log" "$CLUSTER_DIR/slurmctld.console" 2>/dev/null)"; return 1; }
  for node in "${CLUSTER_NODES[@]}"; do cluster_start_slurmd "$node"; done
  cluster_wait 30 cluster_all_idle || { cluster_fail "nodes did not come up: $(sinfo -N 2>&1) $(tail -5 "$CLUSTER_DIR"/slurmd-*.log 2>/dev/null)"; return 1; }
}

cluster_all_idle() {
  local states
  states=$(sinfo -h -N -o '%T' 2>/dev/null) || return 1
  [ -n "$states" ] && ! grep -qv '^idle$' <<<"$states"
}

cluster_node_state() { scontrol show node "$1" 2>/dev/null | sed -n 's/.*State=\([^ ]*\).*/\1/p'; }

# Every process a node's jobs started (their environment names the node and this cluster),
# slurmstepd included: what a crash of that node takes down.
cluster_job_pids() {  # cluster_job_pids NODE
  local pid
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    [ "$pid" = "$$" ] && continue
    local environment
    environment=$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ") || continue
    if grep -qx "SLURMD_NODENAME=$1" <<<"$environment" && grep -qx "SLURM_CONF=$SLURM_CONF" <<<"$environment"; then
      echo "$pid"
      # The job's slurmstepd (its environment is slurmd's, so it is found as the parent).
      local parent
      parent=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null)
      [ -n "$parent" ] && [ "$(cat "/proc/$parent/comm" 2>/dev/null)" = slurmstepd ] && echo "$parent"
    fi
  done
}

cluster_stop() {
  local pid
  # Job processes first (they belong to this cluster only: their environment names its SLURM_CONF).
  if [ -n "${SLURM_CONF:-}" ] && [ -n "${CLUSTER_NODES+x}" ]; then
    for node in "${CLUSTER_NODES[@]}"; do
      for pid in $(cluster_job_pids "$node"); do kill -KILL "$pid" 2>/dev/null; done
    done
  fi
  for pid in "${cluster_pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${cluster_pids[@]}"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.3; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  cluster_pids=()
}
