#!/usr/bin/env python3
"""Runs bench/loaders_bench (jetchar) and bench/loaders_peer.py (PyTorch DataLoader) on the same
generated files and prints samples/s side by side with the ratio jetchar / PyTorch.

    loaders_compare.py --bench BUILD/bench/loaders_bench --data DIR [--generate] [--workers 0 1 2]
"""
import argparse
import json
import os
import subprocess
import sys


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
    parser.add_argument("--only")
    args = parser.parse_args()
    if args.generate:
        subprocess.run([args.bench, "--generate", args.data], check=True)
    common = ["--batch", str(args.batch)] + (["--only", args.only] if args.only else [])
    ours = run([args.bench, "--data", args.data, "--workers", ",".join(map(str, args.workers))] + common)
    peer = run([args.python, os.path.join(os.path.dirname(__file__), "loaders_peer.py"), "--data", args.data,
                "--workers"] + [str(w) for w in args.workers] + common)
    index = {(r["dataset"], r["workers"]): r for r in peer}
    print(f"{'dataset':<14} {'workers':>7} {'jetchar/s':>11} {'pytorch/s':>11} {'ratio':>7} "
          f"{'stall jc s':>11} {'stall pt s':>11}")
    for r in ours:
        p = index.get((r["dataset"], r["workers"]))
        if not p:
            continue
        print(f"{r['dataset']:<14} {r['workers']:>7} {r['samples_per_s']:>11.1f} {p['samples_per_s']:>11.1f} "
              f"{r['samples_per_s'] / p['samples_per_s']:>6.2f}x {r['stall_s']:>11.3f} {p['stall_s']:>11.3f}")


if __name__ == "__main__":
    main()
