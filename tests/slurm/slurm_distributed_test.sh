#!/usr/bin/env bash
# One data-parallel training across the boards of three Slurm nodes (ctest label `slurm`): a
# private cluster (tests/slurm/slurm_cluster.sh) of nodes b1, b2, b3, each with its own simulated
# AGX Orin kept in its own directory, runs `srun -N3 -n3 jetchar train` without --nnodes,
# --node-rank, --master-addr or --master-port: each task takes its place in the world from srun's
# environment (SLURM_NTASKS, SLURM_PROCID), node 0's address from SLURM_STEP_NODELIST and the
# rendezvous port from SLURM_JOB_ID (29500 + id % 3000; the cluster's first job id is chosen so
# that this port is free), and finds its node's board through a wrapper keyed by SLURMD_NODENAME.
# Every task must exit 0 and report a world of 3 ranks placed as srun placed it; node 0's
# minibatch losses must equal those of one process training the global batch (3 x 8 = 24) with
# the same seed; node 0's energy per epoch must be the sum of the three boards' own (each node's
# record holds its own); and every board's control tree must be back byte for byte.
# Node 0's address is its node name, which must resolve as a cluster's DNS would resolve it: where
# b1..b3 do not, the test runs in a mount namespace of its own whose /etc/hosts maps them to
# 127.0.0.1; where no such namespace can be made, the wrapper gives --master-addr 127.0.0.1 and the
# test says so. Skips (exit 77) with the reason when Slurm cannot run here.
# Usage: slurm_distributed_test.sh JETCHAR
set -uo pipefail

JETCHAR=$(readlink -f "$1")
SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; [ -n "${T:-}" ] && tail -n 20 "$T"/cluster/slurmctld.log "$T"/srun.out "$T"/tasks/*.err >&2 2>/dev/null; exit 1; }

source "$HERE/slurm_test_common.sh"
slurm_test_require munged slurmctld slurmd srun sinfo scontrol ss getent python3

NODES=(b1 b2 b3)
MASTER_ADDR_OPTION=""
if ! slurm_test_resolve_nodes "$SELF" "$@"; then
  echo "note: b1..b3 do not resolve and no mount namespace can be made: node 0's address is given (127.0.0.1)"
  MASTER_ADDR_OPTION="--master-addr 127.0.0.1"
fi
slurm_test_clean_environment

slurm_test_directory jetchar-slurm-dp-test
started=$SECONDS

KIND=agx-orin-r36
for node in "${NODES[@]}" single; do
  "$JETCHAR" device info --board "sim:$KIND" --root "$T/boards/$node" >/dev/null || fail "cannot create the simulated $KIND for $node"
  tree_digest "$T/boards/$node" >"$T/$node.before"
done

# The same training as every rank's, but one process training the global batch of 24.
TRAIN=(--model lenet5 --dataset 'synthetic:1x28x28?samples=384&classes=10' --epochs 1 --threads 1 --seed 3 --minibatches --json)
"$JETCHAR" train --board "sim:$KIND" --root "$T/boards/single" "${TRAIN[@]}" --batch 24 >"$T/one.json" 2>"$T/one.err" ||
  fail "the one-process training failed: $(cat "$T/one.err")"

# The cluster's first job runs the step; its id gives a port no socket holds.
slurm_test_first_job
cluster_start "$T/cluster" "${NODES[@]}" || skip "Slurm does not start here (see above)"

# One task of the step: this node's board; its place in the world comes from srun's environment.
mkdir -p "$T/tasks"
cat >"$T/task.sh" <<TASK
#!/usr/bin/env bash
out="$T/tasks/\$SLURM_PROCID"
echo "\$SLURMD_NODENAME \$SLURM_JOB_ID" >"\$out.where"
"$JETCHAR" train --board "sim:$KIND" --root "$T/boards/\$SLURMD_NODENAME" $MASTER_ADDR_OPTION "\$@" >"\$out.json" 2>"\$out.err"
status=\$?
echo "\$status" >"\$out.status"
exit "\$status"
TASK
chmod +x "$T/task.sh"
cd "$T" || fail "no directory $T"
step_started=$SECONDS
timeout 150 srun -N3 -n3 --ntasks-per-node=1 --kill-on-bad-exit=1 "$T/task.sh" "${TRAIN[@]}" --batch 8 --dist-timeout 60 \
  >"$T/srun.out" 2>&1 || fail "srun -N3 -n3 jetchar train failed ($?): $(cat "$T/srun.out")"
echo "the step of 3 tasks trained in $((SECONDS - step_started)) s"

EXPECT_ADDR=b1
[ -n "$MASTER_ADDR_OPTION" ] && EXPECT_ADDR=127.0.0.1
python3 - "$T" "$EXPECT_ADDR" <<'CHECK' || fail "the step's outputs do not hold (above)"
import json, sys
t, expect_addr = sys.argv[1], sys.argv[2]
problems = []
one = json.load(open(f"{t}/one.json"))
nodes = set()
for rank in range(3):
    status = open(f"{t}/tasks/{rank}.status").read().strip()
    node, job = open(f"{t}/tasks/{rank}.where").read().split()
    nodes.add(node)
    if status != "0":
        problems.append(f"task {rank} on {node} exited {status}: {open(f'{t}/tasks/{rank}.err').read()[-600:]}")
        continue
    out = json.load(open(f"{t}/tasks/{rank}.json"))
    record = out["record"]
    if out["settings"].get("world_size") != 3:
        problems.append(f"task {rank}: settings.world_size {out['settings'].get('world_size')}, not 3")
    if record.get("distributed", {}).get("world_size") != 3:
        problems.append(f"task {rank}: record.distributed.world_size {record.get('distributed', {}).get('world_size')}, not 3")
    if record.get("status") != "OK":
        problems.append(f"task {rank}: record status {record.get('status')}")
    # The place srun gave the task (proto JSON leaves out a node_rank of 0).
    place = record["requested"]["workload"]["distributed"]
    expected = {"nnodes": 3, "node_rank": rank, "master_addr": expect_addr, "master_port": 29500 + int(job) % 3000}
    got = {key: place.get(key, 0) for key in expected}
    if got != expected:
        problems.append(f"task {rank} on {node}: placed {got}, srun's environment says {expected}")
    if node != f"b{rank + 1}":
        problems.append(f"task {rank} ran on {node}, not b{rank + 1} (srun's block distribution)")
    if rank == 0:
        losses = [m["loss"] for m in out["minibatches"]]
        expected_losses = [m["loss"] for m in one["minibatches"]]
        if len(losses) != 16 or len(expected_losses) != 16:
            problems.append(f"{len(losses)} minibatches on node 0 and {len(expected_losses)} in one process, not 16")
        for step, (got, want) in enumerate(zip(losses, expected_losses)):
            if abs(got - want) > 1e-4 * max(1.0, abs(want)):
                problems.append(f"step {step}: loss {got} on 3 nodes, {want} in one process of batch 24")
        print(f"node 0's 16 minibatch losses follow one process of batch 24 (first {losses[0]:.6f}, last {losses[-1]:.6f})")
# Node 0's record is the run: its epochs' energy is the sum of the three boards' own, each of which
# it keeps in distributed.node_energy; nodes 1 and 2 keep their own board's in their records.
records = {}
for rank in range(3):
    try:
        records[rank] = json.load(open(f"{t}/tasks/{rank}.json"))["record"]
    except (OSError, ValueError, KeyError):
        pass
if len(records) == 3:
    world = records[0]
    own = {(e.get("node_rank", 0), e.get("epoch", 0)): e for e in world.get("distributed", {}).get("node_energy", [])}
    source = world["context"].get("energy_source", "")
    if not source.startswith("sum over 3 boards of "):
        problems.append(f"node 0's energy_source is '{source}', not a sum over 3 boards")
    for i, epoch in enumerate(world["epochs"]):
        number = epoch.get("epoch", 0)
        figures = [own.get((node, number), {}).get("energy_j") for node in range(3)]
        if None in figures:
            problems.append(f"epoch {number}: node 0's record lacks a node's own energy: {figures}")
            continue
        for node in (1, 2):
            mine = records[node]["epochs"][i].get("energy_j")
            if mine is None or abs(mine - figures[node]) > 1e-9 * max(1.0, mine):
                problems.append(f"epoch {number}: node {node}'s record has {mine} J, node 0's keeps {figures[node]} J for it")
        total = epoch.get("energy_j")
        if total is None or abs(total - sum(figures)) > 1e-9 * sum(figures):
            problems.append(f"epoch {number}: node 0's energy {total} J is not the boards' sum {sum(figures)} J ({figures})")
        else:
            print(f"epoch {number}: {total:.3f} J on 3 boards = " + " + ".join(f"{f:.3f}" for f in figures))
if nodes != {"b1", "b2", "b3"}:
    problems.append(f"the tasks ran on {sorted(nodes)}, not on b1, b2 and b3")
for problem in problems:
    print("  " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
CHECK

expect_boards_restored
echo "PASS in $((SECONDS - started)) s"
