#!/usr/bin/env bash
# A sweep with a run of three nodes, submitted to Slurm (ctest label `slurm`): a private cluster
# (tests/slurm/slurm_cluster.sh) of nodes b1, b2, b3, each with its own simulated AGX Orin named by
# its node config, takes a sweep of two LeNet-5 runs with `jetchar sweep submit --slurm --nodes
# b1,b2,b3`: run 0000-r0 trains data-parallel on 3 nodes of batch 8 (workload.distributed.nnodes
# 3), one job of 3 nodes whose srun step runs `sweep task --run 0000-r0` on every node; run
# 0001-r0 trains one process of the global batch 24 with the same seed, an array task. After the
# merge job: the merged store holds each run once, the 3-node run as node 0's (b1's) record of a
# world of 3 ranks and no node but b1 storing it; its minibatch losses equal the one process's; the
# nodes other than 0 said that node 0 records it; a task of the same job run again stores and runs
# nothing; and every board's control tree is back byte for byte.
# Node 0's address is its node name, which must resolve: where b1..b3 do not, the test runs in a
# mount namespace whose /etc/hosts maps them to 127.0.0.1 (as tests/slurm/slurm_distributed_test.sh
# does); where none can be made, the spec gives master_addr 127.0.0.1 and the test says so.
# Skips (exit 77) with the reason when Slurm cannot run here. Usage: slurm_distributed_sweep_test.sh JETCHAR
set -uo pipefail

JETCHAR=$(readlink -f "$1")
SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; [ -n "${T:-}" ] && tail -n 30 "$T"/cluster/slurmctld.log "$T"/results/slurm/*.out >&2 2>/dev/null; exit 1; }

source "$HERE/slurm_test_common.sh"
slurm_test_require munged slurmctld slurmd srun sbatch squeue sinfo scontrol ss getent python3

NODES=(b1 b2 b3)
MASTER_ADDR_FIELD=""
if ! slurm_test_resolve_nodes "$SELF" "$@"; then
  echo "note: b1..b3 do not resolve and no mount namespace can be made: the spec gives node 0's address (127.0.0.1)"
  MASTER_ADDR_FIELD='master_addr: "127.0.0.1"'
fi
slurm_test_clean_environment

slurm_test_directory jetchar-slurm-dp-sweep-test
started=$SECONDS

KIND=agx-orin-r36
mkdir -p "$T/nodes"
for node in "${NODES[@]}"; do
  "$JETCHAR" device info --board "sim:$KIND" --root "$T/boards/$node" >/dev/null || fail "cannot create the simulated $KIND for $node"
  printf 'board: "sim:%s"\nroot: "%s"\n' "$KIND" "$T/boards/$node" >"$T/nodes/$node.textproto"
  tree_digest "$T/boards/$node" >"$T/$node.before"
done

# Two runs of one seed and data: 3 nodes of batch 8 each, and one process of the global batch 24.
# Each run sets 4 cores, so every board is controlled (and must be restored).
cat >"$T/sweep.textproto" <<SPEC
name: "dp-sweep"
base {
  workload {
    model: "lenet5" dataset: "synthetic:1x28x28?samples=384&classes=10" batch_size: 24 epochs: 1
    threads: 1 seed: 3 device: "cpu"
  }
  device { cpu_cores: 4 }
  measurement { minibatch_records: true }
}
runs { workload { batch_size: 8 distributed { nnodes: 3 timeout_s: 60 $MASTER_ADDR_FIELD } } }
runs { }
SPEC

# The cluster's first job is the 3-node run's (submitted first); its id gives a port no socket holds.
slurm_test_first_job
cluster_start "$T/cluster" "${NODES[@]}" || skip "Slurm does not start here (see above)"

cd "$T" || fail "no directory $T"
"$JETCHAR" sweep submit sweep.textproto --slurm --results "$T/results" --nodes b1,b2,b3 \
  --node-config "$T/nodes/%n.textproto" >"$T/submit.out" 2>&1 || { cat "$T/submit.out"; fail "sweep submit failed"; }
cat "$T/submit.out"
world_job=$(sed -n 's/^submitted job \([0-9]*\) (run 0000-r0 on 3 nodes: b1,b2,b3)$/\1/p' "$T/submit.out")
merge_job=$(sed -n 's/^submitted merge job \([0-9]*\).*/\1/p' "$T/submit.out")
[ -n "$world_job" ] || fail "no job of 3 nodes pinned to b1,b2,b3 for run 0000-r0 in the submit output"
[ "$world_job" = "$first_job" ] || fail "the 3-node run's job is $world_job, not the first job $first_job"
[ -n "$merge_job" ] || fail "no merge job in the submit output"
grep -q "^submitted array job [0-9]* (1 task(s) on b1)$" "$T/submit.out" || fail "the run of one machine is not one array task on b1"
script="$T/results/slurm/run-0000-r0.sbatch"
for line in "#SBATCH --nodes=3" "#SBATCH --ntasks-per-node=1" "#SBATCH --exclusive" "#SBATCH --requeue" "#SBATCH --nodelist=b1,b2,b3"; do
  grep -qx -- "$line" "$script" || fail "$script lacks '$line'"
done

merge_done() { ! squeue -h -j "$merge_job" 2>/dev/null | grep -q .; }
cluster_wait 240 merge_done || fail "the merge job did not finish: $(squeue 2>&1)"
echo "the sweep's jobs ended in $((SECONDS - started)) s"
job_out="$T/results/slurm/jetchar-dp-sweep-run-0000-r0-$world_job.out"
[ -f "$job_out" ] || fail "no output of the 3-node run's job ($job_out)"
cat "$job_out"
for rank in 1 2; do
  grep -q "^run 0000-r0: this node's part (node $rank of 3) ended OK; node 0 (.*) records the run" "$job_out" ||
    fail "node $rank of the world did not say that its part ended OK and node 0 records the run"
done

# Each run once in the merged store; the 3-node run is stored by node 0 (b1) only.
run_ids() { "$JETCHAR" results list "$1" 2>/dev/null | awk '$2 ~ /^[0-9]+-r[0-9]+$/ {print $2}' | sort; }
[ "$(run_ids "$T/results" | tr '\n' ' ')" = "0000-r0 0001-r0 " ] ||
  fail "the merged store holds $(run_ids "$T/results" | tr '\n' ' '), not each of 0000-r0 and 0001-r0 once"
run_ids "$T/results/nodes/b1" | grep -qx 0000-r0 || fail "node 0 (b1) did not store the 3-node run"
for node in b2 b3; do
  ! run_ids "$T/results/nodes/$node" | grep -qx 0000-r0 || fail "node $node stored the 3-node run too"
done
"$JETCHAR" results show "$T/results" 0000-r0 >"$T/world.txt" 2>&1 || fail "results show 0000-r0: $(cat "$T/world.txt")"
"$JETCHAR" results show "$T/results" 0001-r0 >"$T/one.txt" 2>&1 || fail "results show 0001-r0: $(cat "$T/one.txt")"

python3 - "$T" <<'CHECK' || fail "the stored runs do not hold (above)"
import re, sys
t = sys.argv[1]
problems = []
world, one = open(f"{t}/world.txt").read(), open(f"{t}/one.txt").read()
def field(text, name):
    found = re.search(rf"^\s*{name}: (\S+)", text, re.M)
    return found.group(1) if found else None
def losses(text):
    return [float(v) for v in re.findall(r"^\s*minibatches \{[^}]*?\bloss: (\S+)", text, re.M | re.S)]
for name, text in (("0000-r0", world), ("0001-r0", one)):
    if field(text, "status") not in (None, "OK"):
        problems.append(f"run {name} is {field(text, 'status')}: {field(text, 'reason')}")
block = re.search(r"^distributed \{(.*?)^\}", world, re.M | re.S)
if not block or field(block.group(1), "world_size") != "3":
    problems.append(f"run 0000-r0's record has no distributed block of world_size 3: {block.group(0)[:300] if block else 'none'}")
elif field(block.group(1), "global_batch") != "24":
    problems.append(f"run 0000-r0's global batch is {field(block.group(1), 'global_batch')}, not 24")
if re.search(r"^distributed \{", one, re.M) and "world_size: 3" in one:
    problems.append("run 0001-r0 (one process) is recorded as a world of 3")
got, want = losses(world), losses(one)
if len(got) != 16 or len(want) != 16:
    problems.append(f"{len(got)} minibatch losses in the 3-node run and {len(want)} in the one process, not 16")
for step, (g, w) in enumerate(zip(got, want)):
    if abs(g - w) > 1e-4 * max(1.0, abs(w)):
        problems.append(f"step {step}: loss {g} on 3 nodes, {w} in one process of batch 24")
if not problems:
    print(f"the 3-node run's 16 minibatch losses follow one process of batch 24 (first {got[0]:.6f}, last {got[-1]:.6f})")
for problem in problems:
    print("  " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
CHECK

# A task of the job run again (a requeue) finds node 0's record and runs nothing, on every node.
for rank in 0 1 2; do
  node=${NODES[$rank]}
  SLURM_JOB_ID=$world_job SLURM_STEP_ID=0 SLURM_NTASKS=3 SLURM_PROCID=$rank SLURM_STEP_NODELIST='b[1-3]' SLURMD_NODENAME=$node \
    "$JETCHAR" sweep task "$T/results" --run 0000-r0 --node-config "$T/nodes/%n.textproto" >"$T/again-$node.out" 2>&1 ||
    fail "the task of node $rank run again failed: $(cat "$T/again-$node.out")"
  grep -q "^run 0000-r0 is stored by node b1 already; node $node runs nothing$" "$T/again-$node.out" ||
    fail "the task of node $rank run again did not find node 0's record: $(cat "$T/again-$node.out")"
done
[ "$(run_ids "$T/results/nodes/b1" | tr '\n' ' ')" = "0000-r0 0001-r0 " ] || fail "b1's store changed"

expect_boards_restored
echo "PASS in $((SECONDS - started)) s"
