#!/usr/bin/env python3
"""`jetchar train` against PyTorch in Python on the same training: LeNet-5, Fashion-MNIST, batch 16,
one intra-op thread, data loaded in the training thread (bench/train_peer.py is the PyTorch side).

    train_compare.py --jetchar BUILD/cli/jetchar [--data /usr/share/datasets/fashion-mnist]
                     [--rounds 3] [--max-batches 1000] [--batch 16] [--threads 1]

Each round runs jetchar and then PyTorch (the order alternates between rounds, as the machine may
be shared), two epochs each; the figure is the second epoch's samples/s (the first warms caches
and allocators; jetchar reports it apart as epoch 0). The table shows each round and the ratio of
the medians, jetchar / PyTorch: above 1 when jetchar trains faster; then the same for the
training loop alone (minibatches per second of the epoch less its fetch stall: zero_grad, forward,
loss, backward, optimizer step and each side's bookkeeping), which leaves the data loaders out.
"""
import argparse
import json
import os
import statistics
import subprocess


def jetchar_run(args):
    command = [args.jetchar, "train", "--model", "lenet5", "--dataset", f"fashion-mnist:{args.data}",
               "--batch", str(args.batch), "--epochs", "2", "--max-batches", str(args.max_batches),
               "--threads", str(args.threads), "--board", "host", "--json"]
    result = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    epoch = result["epochs"][1]
    return {"samples_per_s": epoch["samples_per_s"], "loss": epoch["mean_loss"],
            "steps_per_s": steps_per_s(epoch["batches"], epoch["e2e_ns"] / 1e9, epoch["stall_ns"] / 1e9)}


def peer_run(args):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_peer.py")
    command = [args.python, script, "--data", args.data, "--batch", str(args.batch), "--epochs", "2",
               "--max-batches", str(args.max_batches), "--threads", str(args.threads)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    epoch = [json.loads(line) for line in out.splitlines() if line.startswith("{")][1]
    batches = -(-epoch["samples"] // args.batch)
    return {"samples_per_s": epoch["samples_per_s"], "loss": epoch["loss"],
            "steps_per_s": steps_per_s(batches, epoch["seconds"], epoch["stall_s"])}


def steps_per_s(batches, seconds, stall_s):
    """Minibatches per second of the epoch without its fetch stall: the training loop alone."""
    return batches / (seconds - stall_s)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jetchar", required=True)
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--python", default="/usr/bin/python3", help="the Python with Debian's python3-torch")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-batches", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    ours, peer = [], []
    print(f"{'round':>5} {'jetchar/s':>10} {'pytorch/s':>10} {'ratio':>6} {'jc steps/s':>11} {'pt steps/s':>11} "
          f"{'ratio':>6} {'loss jc':>8} {'loss pt':>8}", flush=True)
    for round_index in range(args.rounds):
        runs = [(jetchar_run, ours), (peer_run, peer)]
        for run, results in runs if round_index % 2 == 0 else reversed(runs):
            results.append(run(args))
        a, b = ours[-1], peer[-1]
        print(f"{round_index:>5} {a['samples_per_s']:>10.1f} {b['samples_per_s']:>10.1f} "
              f"{a['samples_per_s'] / b['samples_per_s']:>6.2f} {a['steps_per_s']:>11.1f} {b['steps_per_s']:>11.1f} "
              f"{a['steps_per_s'] / b['steps_per_s']:>6.2f} {a['loss']:>8.4f} {b['loss']:>8.4f}", flush=True)
    median = {key: (statistics.median(r[key] for r in ours), statistics.median(r[key] for r in peer))
              for key in ("samples_per_s", "steps_per_s")}
    (a, b), (c, d) = median["samples_per_s"], median["steps_per_s"]
    print(f"median {a:>9.1f} {b:>10.1f} {a / b:>6.2f} {c:>11.1f} {d:>11.1f} {c / d:>6.2f}")


if __name__ == "__main__":
    main()
