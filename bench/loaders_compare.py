#!/usr/bin/env python3
"""Runs bench/loaders_bench (jetchar) and bench/loaders_peer.py (PyTorch DataLoader) on the same
generated files and prints samples/s side by side with the ratio jetchar / PyTorch.

    loaders_compare.py --bench BUILD/bench/loaders_bench --data DIR [--generate] [--workers 0 1 2]
                       [--rounds N] [--only KIND]

The machine may be shared, so the two are interleaved: for every (data set, workers) pair each
round runs jetchar and then PyTorch (the order alternates between rounds), one epoch each, and
the table shows the median samples/s over the rounds and the ratio of the medians.
"""
import argparse
import json
import os
import statistics
import subprocess

KINDS = ["fashion-mnist", "cifar10", "jpeg"]


def run(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--python", default="/usr/bin/python3", help="the Python with Debian's python3-torch")
    parser.add_argument("--generate", action="store_true", help="write the data set files first")
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=1, help="interleaved runs per (data set, workers)")
    parser.add_argument("--only", choices=KINDS)
    args = parser.parse_args()
    if args.generate:
        subprocess.run([args.bench, "--generate", args.data], check=True)
    peer_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "loaders_peer.py")
    rows = []
    for kind in [args.only] if args.only else KINDS:
        for workers in args.workers:
            common = ["--batch", str(args.batch), "--only", kind]
            ours_cmd = [args.bench, "--data", args.data, "--workers", str(workers)] + common
            peer_cmd = [args.python, peer_script, "--data", args.data, "--workers", str(workers)] + common
            ours, peer = [], []
            for round_index in range(args.rounds):
                order = [(ours_cmd, ours), (peer_cmd, peer)]
                for command, results in order if round_index % 2 == 0 else reversed(order):
                    results.extend(run(command))
            rows.append((kind, workers, ours, peer))
            report(rows[-1], header=len(rows) == 1)


def report(row, header):
    kind, workers, ours, peer = row
    if header:
        print(f"{'dataset':<14} {'workers':>7} {'jetchar/s':>11} {'pytorch/s':>11} {'ratio':>7} "
              f"{'stall jc s':>11} {'stall pt s':>11} {'runs':>5}", flush=True)
    ours_rate = statistics.median(r["samples_per_s"] for r in ours)
    peer_rate = statistics.median(r["samples_per_s"] for r in peer)
    print(f"{kind:<14} {workers:>7} {ours_rate:>11.1f} {peer_rate:>11.1f} {ours_rate / peer_rate:>6.2f}x "
          f"{statistics.median(r['stall_s'] for r in ours):>11.3f} "
          f"{statistics.median(r['stall_s'] for r in peer):>11.3f} {len(ours):>5}", flush=True)


if __name__ == "__main__":
    main()
