#!/usr/bin/env bash
# The fleet test against a real Slurm on this machine (ctest label `slurm`): a private cluster
# (tests/slurm/slurm_cluster.sh) of three nodes of two board kinds, each kind a Slurm feature:
# b1 and b2 two simulated AGX Orins (two instances: their own serial numbers), b3 a simulated
# Orin Nano (each node's config names its board). A spec of both kinds, 12 short runs, goes in
# with `jetchar sweep submit --slurm --redact-serial`: the AGX Orin array runs on any node with
# the feature agx-orin (--constraint), the Orin Nano's is pinned to b3; each kind's runs are
# planned from its own core counts, which only its boards have (12 cores on an Orin Nano is an
# error), so a run on the wrong kind fails. Node b2 crashes mid-run (its slurmd and its job's
# processes are killed); its task is requeued onto b1, and b2 comes back only once no AGX Orin
# task is left to take, so the final job's restore step is what restores b2's board. Then the
# merged store must hold every planned run exactly once, each stored by a node of its kind,
# with no serial number in any store; the report must be written; every board's control tree
# must be back byte for byte; and a board that cannot be restored must drain its node.
# Skips (exit 77) with the reason when Slurm cannot run here. Usage: slurm_fleet_test.sh JETCHAR
set -uo pipefail

JETCHAR=$(readlink -f "$1")
HERE=$(dirname "$(readlink -f "$0")")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; [ -n "${T:-}" ] && tail -n 20 "$T"/cluster/slurmctld.log "$T"/results/slurm/*.out >&2 2>/dev/null; exit 1; }

source "$HERE/slurm_test_common.sh"
slurm_test_require munged slurmctld slurmd sbatch squeue sinfo scontrol ss

slurm_test_directory jetchar-slurm-test

NODES=(b1 b2 b3)
declare -A KIND=([b1]=agx-orin-r36 [b2]=agx-orin-r36 [b3]=orin-nano-r36)
declare -A CLUSTER_FEATURES=([b1]=agx-orin [b2]=agx-orin [b3]=orin-nano)
declare -A SERIAL=([b1]=1421022123456 [b2]=1421022654321 [b3]=1424523012345)
cluster_start "$T/cluster" "${NODES[@]}" || skip "Slurm does not start here (see above)"

# Each node's board: a simulated board of its kind kept in its own directory, named by the
# node's config file (what /etc/jetchar/node.textproto is on a real board).
mkdir -p "$T/nodes"
for node in "${NODES[@]}"; do
  "$JETCHAR" device info --board "sim:${KIND[$node]}" --root "$T/boards/$node" >/dev/null ||
    fail "cannot create the simulated ${KIND[$node]} for $node"
  # A second board of a kind is another physical board: its own device-tree serial number.
  printf '%s\0' "${SERIAL[$node]}" >"$T/boards/$node/sys/firmware/devicetree/base/serial-number"
  printf 'board: "sim:%s"\nroot: "%s"\n' "${KIND[$node]}" "$T/boards/$node" >"$T/nodes/$node.textproto"
  tree_digest "$T/boards/$node" >"$T/$node.before"
done

# Each run cools down 4 s inside its run (between the journal's start and done), so that the crash,
# whose search for the node's processes takes a while on a loaded machine, lands in a run.
cat >"$T/fleet.textproto" <<SPEC
name: "fleet"
base {
  workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 4 epochs: 2 max_minibatches: 3 device: "cpu" }
  measurement { sample_rate_hz: 50 }
  cooldown { seconds: 4 }
}
axes { field: "workload.batch_size" values: ["4", "8"] }
kinds { name: "agx-orin" axes { field: "device.cpu_cores" values: ["2", "4", "8", "12"] } }
kinds { name: "orin-nano" nodes: "b3" axes { field: "device.cpu_cores" values: ["2", "6"] } }
SPEC

cd "$T"
"$JETCHAR" sweep submit fleet.textproto --slurm --results "$T/results" --nodes 2 --runs-per-task 2 --redact-serial \
  --node-config "$T/nodes/%n.textproto" >"$T/submit.out" 2>&1 || { cat "$T/submit.out"; fail "sweep submit failed"; }
cat "$T/submit.out"
merge_job=$(sed -n 's/^submitted merge job \([0-9]*\).*/\1/p' "$T/submit.out")
[ -n "$merge_job" ] || fail "no merge job in the submit output"
grep -q "^submitted array job [0-9]* (4 task(s) of kind agx-orin)$" "$T/submit.out" || fail "no array of kind agx-orin"
grep -q "#SBATCH --constraint=agx-orin" "$T"/results/slurm/array-agx-orin.sbatch || fail "the agx-orin array is not constrained"
# The test holds the final job until b2 is back (below), so that its restore step finds b2 up.
scontrol hold "$merge_job" || fail "cannot hold the merge job"

# Node b2 crashes once it has stored a run and is in the middle of another task.
run_ids() { "$JETCHAR" results list "$1" 2>/dev/null | awk '$2 ~ /^[a-z-]+\.[0-9]+-r[0-9]+$/ {print $2}' | sort; }
# In the middle of a run, after at least one finished: the node's sweep journal (experiments/
# sweep_journal.h: "start ID", "done ID") ends in a start, and the task's processes are alive.
mid_run() {
  local journal="$T/results/nodes/$1/journal"
  [ -f "$journal" ] && grep -q '^done ' "$journal" && tail -n 1 "$journal" | grep -q '^start ' &&
    [ -n "$(cluster_job_pids "$1")" ]
}
cluster_wait 240 mid_run b2 || fail "node b2 was never seen in the middle of a run"
echo "crashing node b2: slurmd $cluster_slurmd_b2 and its job's processes"
# As a power cut would: slurmd and the job's slurmstepd first (a stepd that saw its job end would
# report the end to slurmctld, which a crashed node never does), then the job's processes.
victims=$(cluster_job_pids b2)
stepds=$(for pid in $victims; do [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = slurmstepd ] && echo "$pid"; done)
kill -KILL "$cluster_slurmd_b2" $stepds 2>/dev/null
kill -KILL $victims 2>/dev/null
node_down() { cluster_node_state b2 | grep -Eq 'DOWN|NOT_RESPONDING'; }
cluster_wait 60 node_down || fail "slurmctld did not notice node b2 down: $(cluster_node_state b2)"
interrupted=$(tail -n 1 "$T/results/nodes/b2/journal" | sed -n 's/^start //p')
[ -n "$interrupted" ] || fail "b2's journal does not end in the run it was killed in: $(tail -n 2 "$T/results/nodes/b2/journal")"
echo "node b2 is $(cluster_node_state b2), killed in run $interrupted"
# Requeued onto the other AGX Orin, b1, which runs the interrupted run again; b2 comes back only
# when no AGX Orin task is left to take, so no later task of its own restores its board.
rerun_on_b1() { grep -qx "start $interrupted" "$T/results/nodes/b1/journal"; }
cluster_wait 240 rerun_on_b1 || fail "run $interrupted was not run again on b1: $(squeue 2>&1)"
agx_left() { ! squeue -h -t PENDING -n jetchar-fleet-agx-orin 2>/dev/null | grep -q .; }
cluster_wait 240 agx_left || fail "AGX Orin tasks still pending: $(squeue 2>&1)"
echo "run $interrupted ran again on b1; restarting b2's slurmd"
cluster_start_slurmd b2
node_up() { cluster_node_state b2 | grep -Eq '^(IDLE|ALLOCATED|MIXED)$'; }
cluster_wait 60 node_up || fail "node b2 did not come back: $(cluster_node_state b2)"
scontrol release "$merge_job" || fail "cannot release the merge job"

merge_done() { ! squeue -h -j "$merge_job" 2>/dev/null | grep -q .; }
cluster_wait 420 merge_done || fail "the merge job did not finish: $(squeue 2>&1)"
[ -f "$T/results/report.html" ] || fail "the merge job wrote no report"
grep -q 'id="fleet"' "$T/results/report.html" || fail "the report has no fleet page"
# analyze reads the merged store: one Pareto front per board kind, and the spread across boards.
"$JETCHAR" analyze pareto "$T/results" >"$T/pareto.out" 2>&1 || fail "analyze pareto failed: $(cat "$T/pareto.out")"
[ "$(grep -c '^lenet5/synthetic board=.*configurations on the time-energy Pareto front$' "$T/pareto.out")" = 2 ] ||
  fail "analyze pareto does not give one front per board kind: $(cat "$T/pareto.out")"
"$JETCHAR" analyze stats "$T/results" --level devices >"$T/devices.out" 2>&1 || fail "analyze stats failed: $(cat "$T/devices.out")"
grep -q '^across devices' "$T/devices.out" || fail "analyze stats gives no spread across devices: $(cat "$T/devices.out")"

# Every planned run of both kinds exactly once in the merged store.
{ "$JETCHAR" sweep plan fleet.textproto --kind agx-orin --board "sim:${KIND[b1]}"
  "$JETCHAR" sweep plan fleet.textproto --kind orin-nano --board "sim:${KIND[b3]}"; } |
  awk '$1 ~ /^[a-z-]+\.[0-9]+-r[0-9]+$/ {print $1}' | sort >"$T/planned"
[ "$(wc -l <"$T/planned")" -ge 12 ] || fail "the plan has fewer than 12 runs: $(cat "$T/planned")"
run_ids "$T/results" >"$T/merged"
diff "$T/planned" "$T/merged" >"$T/runs.diff" || fail "merged runs differ from the plan: $(cat "$T/runs.diff")"
echo "merged store: $(wc -l <"$T/merged") runs, each once"
# Each kind's runs on nodes of that kind only (the constraint routed them).
for node in b1 b2; do
  run_ids "$T/results/nodes/$node" | grep -v '^agx-orin\.' && fail "node $node (agx-orin) stored runs of another kind"
done
run_ids "$T/results/nodes/b3" | grep -v '^orin-nano\.' && fail "node b3 (orin-nano) stored runs of another kind"
[ "$(run_ids "$T/results/nodes/b3" | wc -l)" = 4 ] || fail "b3 did not store the 4 Orin Nano runs"
# The crashed task was requeued; the final job restored b2's board from its change journal.
grep -qi "requeu" "$T/cluster/slurmctld.log" || fail "slurmctld requeued no task of node b2"
grep -h "^node b2: restored" "$T"/results/slurm/*.out || fail "the final job did not restore board b2"
# --redact-serial: each board is its serial's SHA-256, never the serial, in every store (its
# write-ahead log included: a killed task's runs may still be there).
for store in "$T"/results/results.db "$T"/results/nodes/*/results.db; do
  files=("$store")
  [ -f "$store-wal" ] && files+=("$store-wal")
  for node in "${NODES[@]}"; do
    ! grep -aq "${SERIAL[$node]}" "${files[@]}" || fail "$store holds the serial number of $node"
  done
  grep -aq "sha256:" "${files[@]}" || fail "$store holds no hashed serial"
done
# Status from the stores and Slurm (this cluster keeps no accounting: squeue), by directory and by job id.
"$JETCHAR" sweep status "$T/results" >"$T/status.out" 2>&1 || { cat "$T/status.out"; fail "sweep status failed"; }
cat "$T/status.out"
grep -q "^$(wc -l <"$T/planned") of $(wc -l <"$T/planned") planned runs stored by the nodes, 0 not yet$" "$T/status.out" ||
  fail "sweep status does not count every run stored"
grep -q "accounting storage is disabled.*states from squeue" "$T/status.out" || fail "sweep status does not say it fell back to squeue"
# Every run is stored: none is still "running", and the run the crash interrupted is named as re-run.
[ "$(awk '$1 ~ /^b[0-9]$/ && $NF != "-"' "$T/status.out" | wc -l)" = 0 ] || fail "sweep status lists a stored run as running"
grep -q "^b2: interrupted by a killed task and stored since by its requeued task: .*$interrupted" "$T/status.out" ||
  fail "sweep status does not name the run the crash interrupted"
# Three boards, two of one kind: three devices, each named by its module and hashed serial number.
[ "$(awk '$1 ~ /^b[0-9]$/ {print $2}' "$T/status.out" | sort -u | wc -l)" = 3 ] || fail "not three devices in the status"
"$JETCHAR" sweep status "$merge_job" >"$T/status-job.out" 2>&1 || { cat "$T/status-job.out"; fail "sweep status JOBID failed"; }
grep -q "planned runs stored by the nodes" "$T/status-job.out" || fail "sweep status $merge_job: $(cat "$T/status-job.out")"
# Merging again changes nothing (idempotent).
"$JETCHAR" results merge "$T/results" "$T"/results/nodes/*/results.db | tee "$T/merge2.out"
grep -q " 0 added" "$T/merge2.out" || fail "a second merge added runs"

expect_boards_restored

# A board whose change journal cannot be restored takes no more runs: its task drains the node
# (scontrol against this cluster) and fails.
printf 'not a change journal\n' >"$T/boards/b3/var/lib/jetchar/change-journal"
if SLURMD_NODENAME=b3 "$JETCHAR" sweep task "$T/results" --kind orin-nano --chunk 0 --runs-per-task 2 \
     --node-config "$T/nodes/%n.textproto" >"$T/drain.out" 2>&1; then
  fail "a task on a board that cannot be restored succeeded"
fi
grep -q "node b3 drained" "$T/drain.out" || fail "the task did not drain node b3: $(cat "$T/drain.out")"
cluster_node_state b3 | grep -q DRAIN || fail "node b3 is $(cluster_node_state b3), not drained"
scontrol show node b3 | grep -q "Reason=jetchar: device restore failed" || fail "node b3's drain reason: $(scontrol show node b3 | grep Reason)"
echo "a board that cannot be restored drained its node: $(cluster_node_state b3)"
echo PASS
