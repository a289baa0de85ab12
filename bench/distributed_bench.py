#!/usr/bin/python3
"""Data-parallel training: jetchar's ranks against PyTorch-Python DistributedDataParallel (gloo).

Per model and world size (1 and 2 ranks on this machine, Gloo over loopback, one LibTorch thread per
rank), both sides train the same model with the same per-rank batch (weak scaling) and report the
median time of a step's compute (forward, backward with the gradient all-reduce, optimizer step)
after a warm-up. jetchar's figures come from `jetchar train --nproc-per-node N --minibatches --json`
(each minibatch's compute; its fetch stall, which the Python side has no counterpart of, is left
out); the Python side runs torch.nn.parallel.DistributedDataParallel over a fixed synthetic batch per
rank, the models being bench/workloads_bench.py's. bert-tiny trains sequence classification on a
text data set this script writes (`textcls`, JSON Lines of random in-vocabulary words cut to
--seq tokens, a 30,522-word vocabulary as BERT's, so the embedding table all-reduced is BERT's
size) against the same model over random token ids; both use AdamW as jetchar's token models do. Printed: steps/s per side and their ratio
(jetchar / Python, > 1 = jetchar faster), weak-scaling efficiency (samples/s at N ranks over N times
one rank's), jetchar's exposed communication per step, and the all-reduce bandwidth jetchar reached
against a plain Gloo all-reduce of the same bytes in Python (the ceiling).

Usage: /usr/bin/python3 bench/distributed_bench.py --jetchar build/release/cli/jetchar
       [--steps 40] [--warmup 5] [--batch 16] [--seq 128] [--only lenet5 resnet18-cifar bert-tiny]
Needs Debian's python3-torch (1.13).
"""
import argparse
import json
import os
import socket
import statistics
import random
import subprocess
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads_bench import workload  # noqa: E402  (the models, layer for layer as jetchar's)

SHAPES = {"lenet5": "1x28x28", "resnet18-cifar": "3x32x32"}


VOCAB_SIZE = 30522  # BERT's uncased vocabulary, as the Python side's random ids span


def text_dataset(folder, samples, seq):
    """A textcls folder: vocab.txt and train.jsonl of `samples` texts longer than `seq` tokens."""
    words = [f"w{i}" for i in range(VOCAB_SIZE - 5)]
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        f.write("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words) + "\n")
    rng = random.Random(0)
    with open(os.path.join(folder, "train.jsonl"), "w") as f:
        for i in range(samples):
            text = " ".join(rng.choice(words) for _ in range(seq))
            f.write(json.dumps({"text": text, "label": i % 2}) + "\n")
    return f"textcls:{folder}?max_length={seq}"


def jetchar_side(args, model, ranks):
    samples = (args.steps + args.warmup) * args.batch * ranks
    with tempfile.TemporaryDirectory() as folder:
        dataset = (f"synthetic:{SHAPES[model]}?samples={samples}&classes=10" if model in SHAPES
                   else text_dataset(folder, samples, args.seq))
        return jetchar_run(args, model, ranks, dataset)


def jetchar_run(args, model, ranks, dataset):
    command = [args.jetchar, "train", "--model", model, "--dataset", dataset, "--batch", str(args.batch),
               "--epochs", "1", "--threads", "1", "--seed", "1", "--minibatches", "--json"]
    if ranks > 1:
        command += ["--nproc-per-node", str(ranks)]
    out = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    computes = [m["compute_ns"] / 1e9 for m in out["minibatches"][args.warmup:]]
    result = {"step_s": statistics.median(computes)}
    world = out["record"].get("distributed")
    if world:
        rank0 = [r for r in world["ranks"] if r.get("rank", 0) == 0][0]
        steps = len(out["minibatches"])
        result["exposed_s"] = rank0.get("exposed_communication_s", 0.0) / steps
        result["allreduce_s"] = rank0["allreduce_s"] / steps
        result["bytes"] = int(rank0["allreduce_bytes"]) / steps
    return result


def python_rank(rank, ranks, port, args, model_name, queue):
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=ranks)
    torch.manual_seed(1)
    model, _, loss_of, optimizer = workload(model_name, args.batch, args.seq, torch.device("cpu"))
    # One rank is plain training, as jetchar's one process is; several are DDP.
    trained = torch.nn.parallel.DistributedDataParallel(model) if ranks > 1 else model
    if model_name in SHAPES:
        inputs = (torch.randn(args.batch, *map(int, SHAPES[model_name].split("x"))),)
    else:
        ids = torch.randint(1000, VOCAB_SIZE, (args.batch, args.seq))
        inputs = (ids, torch.ones_like(ids), torch.zeros_like(ids))
    times = []
    for step in range(args.steps + args.warmup):
        start = time.perf_counter()
        optimizer.zero_grad()
        loss_of(trained(*inputs)).backward()
        optimizer.step()
        if step >= args.warmup:
            times.append(time.perf_counter() - start)
    # The ceiling: a plain all-reduce of the gradient bytes.
    flat = torch.zeros(sum(p.numel() for p in model.parameters()))
    dist.barrier()
    reduces = []
    for _ in range(10):
        start = time.perf_counter()
        dist.all_reduce(flat)
        reduces.append(time.perf_counter() - start)
    if rank == 0:
        queue.put({"step_s": statistics.median(times), "plain_allreduce_s": statistics.median(reduces),
                   "bytes": flat.numel() * 4})
    dist.destroy_process_group()


def python_side(args, model_name, ranks):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    queue = mp.get_context("spawn").SimpleQueue()
    mp.spawn(python_rank, args=(ranks, port, args, model_name, queue), nprocs=ranks, join=True)
    return queue.get()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jetchar", required=True, help="the built jetchar executable")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch", type=int, default=16, help="per-rank batch")
    parser.add_argument("--seq", type=int, default=128, help="bert-tiny's sequence length")
    parser.add_argument("--only", nargs="*", default=["lenet5", "resnet18-cifar", "bert-tiny"])
    args = parser.parse_args()
    print(f"{'model':<16}{'ranks':>6}{'jetchar steps/s':>17}{'python steps/s':>16}{'ratio':>7}"
          f"{'efficiency':>12}{'exposed %':>11}{'GB/s':>7}{'ceiling GB/s':>14}")
    for model in args.only:
        one = None
        for ranks in (1, 2):
            ours = jetchar_side(args, model, ranks)
            peer = python_side(args, model, ranks)
            one = one or ours
            efficiency = one["step_s"] / ours["step_s"]  # weak scaling: N x the samples in the step time
            exposed = f"{100 * ours['exposed_s'] / ours['step_s']:.1f}" if "exposed_s" in ours else "-"
            bandwidth = f"{ours['bytes'] / ours['allreduce_s'] / 1e9:.2f}" if "bytes" in ours else "-"
            ceiling = f"{peer['bytes'] / peer['plain_allreduce_s'] / 1e9:.2f}" if ranks > 1 else "-"
            print(f"{model:<16}{ranks:>6}{1 / ours['step_s']:>17.1f}{1 / peer['step_s']:>16.1f}"
                  f"{peer['step_s'] / ours['step_s']:>7.2f}{efficiency:>12.2f}{exposed:>11}{bandwidth:>7}{ceiling:>14}")


if __name__ == "__main__":
    main()
