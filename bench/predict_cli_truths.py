#!/usr/bin/env python3
"""Prediction through the jetchar CLI on ground truths written apart from the C++ ones.

Each truth (below, in Python, none of them a form of the predictor when it was written) is measured
on the 1,440-mode AGX Orin grid (6 core counts x 6 CPU x 10 GPU x 4 EMC clocks), or with
`--grid xavier` on a 29,232-mode grid of an AGX Xavier's size (8 core counts x 29 CPU x 14 GPU x 9
EMC clocks), with relative Gaussian noise, written as a results CSV with the grid as the modes CSV,
and given to `jetchar analyze predict --profile N --json` as a user would. Per truth and noise draw
it prints the chosen forms, the MAPE of the predictions over every mode against the noiseless
truth, the held-out MAPE jetchar reports (the modes the fit left out, against their noisy
measurements), and the command's wall time and peak resident memory.
"""
import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import zlib

CORES = (1, 2, 4, 6, 8, 12)
CPU_MHZ = (729.6, 1036.8, 1344.0, 1651.2, 1958.4, 2201.6)
GPU_MHZ = (306.0, 408.0, 510.0, 612.0, 714.0, 816.0, 918.0, 1020.0, 1122.0, 1300.5)
EMC_MHZ = (665.6, 1600.0, 2133.0, 3199.0)
# An AGX Xavier's mode space in size: its 8 cores, 29 CPU, 14 GPU and 9 EMC clock steps, evenly
# spaced over the board's ranges (the Orin grid's truths are written for GHz clocks of this span).
XAVIER = (tuple(range(1, 9)), tuple(115.2 + i * (2265.6 - 115.2) / 28 for i in range(29)),
          tuple(114.75 + i * (1377.0 - 114.75) / 13 for i in range(14)),
          tuple(204.0 + i * (2133.0 - 204.0) / 8 for i in range(9)))
GRIDS = {"orin": (CORES, CPU_MHZ, GPU_MHZ, EMC_MHZ), "xavier": XAVIER}


# Each truth: (cores, CPU, GPU, EMC clocks in GHz) -> (epoch time s, average power W).
def product(c, f, g, m):
    """Every clock scales the whole epoch and the whole draw: products of powers of the knobs."""
    t = 3.0 * g**-0.7 * m**-0.25 * f**-0.15 * (0.6 + 0.4 / min(c, 4)) ** 0.3
    p = 9.0 * g**0.9 * m**0.2 * f**0.25 * c**0.05
    return t, p


def quadratic(c, f, g, m):
    """Amdahl time summed over resources; power a quadratic in each clock."""
    t = 0.4 + 2.5 / g + 0.9 / m + (0.3 + 1.2 / c) / f
    p = 5 + 0.4 * c * f + 0.15 * c * f * f + 6 * g + 5 * g * g + 1.2 * m + 0.1 * m * m
    return t, p


def layers(c, f, g, m):
    """A sum of per-layer rooflines (arithmetic intensities 0.5 to 32); cubic rails."""
    t = 0.1 + sum(max(0.1 * a / g, 0.4 / m) for a in (0.5, 1, 2, 4, 8, 16, 32))
    t += 0.6 / f * (0.5 + 0.5 / min(c, 3))
    p = 5 + 0.3 * c + 0.35 * min(c, 3) * f**3 + 3.5 * g**3 + 1.5 * g + 0.6 * m + 0.2 * m**2
    return t, p


def exp_leakage(c, f, g, m):
    """Leakage exponential in each rail's voltage; time the slower of CPU and GPU plus a share of the other."""
    vg, vc, vm = 0.55 + 0.42 * max(0, g - 0.4), 0.6 + 0.3 * max(0, f - 1.0), 0.75 + 0.05 * m
    gpu, cpu = 6 / g + 1.5 / m, 4 / f * (0.25 + 0.75 / min(c, 8))
    t = 0.2 + max(gpu, cpu) + 0.15 * min(gpu, cpu)
    p = (4 + 0.09 * c * math.exp((vc - 0.6) / 0.15) + 0.7 * min(c, 8) * cpu / t * f * vc * vc
         + 14 * gpu / t * g * vg * vg + 2 * math.exp((vg - 0.55) / 0.2) + 1.5 * m * vm * vm)
    return t, p


def launch(c, f, g, m):
    """Launch-bound: a single-thread CPU term and a parallel one; power mostly the CPU's."""
    t = 0.1 + 5 / f + 0.8 / g + 0.3 / m + 2 / (f * c)
    p = 4 + 0.2 * c + 1.6 * f**2.2 + 0.5 * (c - 1) * f + 2.5 * g**1.8 + 0.9 * m
    return t, p


TRUTHS = {f.__name__: f for f in (product, quadratic, layers, exp_leakage, launch)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jetchar", default="build/release/cli/jetchar")
    parser.add_argument("--truths", default=",".join(TRUTHS), help="comma-separated, of: " + ", ".join(TRUTHS))
    parser.add_argument("--draws", type=int, default=2, help="noise draws per truth")
    parser.add_argument("--noise", type=float, default=0.02, help="relative measurement noise")
    parser.add_argument("--profile", type=int, default=15, help="profiled modes (analyze predict --profile)")
    parser.add_argument("--grid", default="orin", choices=GRIDS, help="the modes: orin (1,440) or xavier (29,232)")
    args = parser.parse_args()
    cores, cpus, gpus, emcs = GRIDS[args.grid]
    grid = [(c, f, g, m) for c in cores for f in cpus for g in gpus for m in emcs]
    print(f"{len(grid)} modes, {args.profile} profiled, noise {100 * args.noise:.1f} %; "
          "MAPE % over every mode against the truth, and jetchar's held-out MAPE against the measurements")
    print(f"{'truth':12} {'draw':>4} {'forms (time/power)':28} {'time':>6} {'power':>6} {'held-out time':>14} {'power':>6}"
          f" {'wall s':>6} {'MiB':>5}")
    with tempfile.TemporaryDirectory() as tmp:
        modes_csv, runs_csv = os.path.join(tmp, "modes.csv"), os.path.join(tmp, "runs.csv")
        with open(modes_csv, "w") as out:
            out.write("mode,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz\n")
            out.writelines(f"m{i},{c},{f},{g},{m}\n" for i, (c, f, g, m) in enumerate(grid))
        for name in args.truths.split(","):
            if name not in TRUTHS:
                sys.exit(f"--truths: unknown truth '{name}'; valid: {', '.join(TRUTHS)}")
            truth = [TRUTHS[name](c, f / 1e3, g / 1e3, m / 1e3) for (c, f, g, m) in grid]
            for draw in range(args.draws):
                rng = random.Random(zlib.crc32(f"{name}{draw}".encode()))
                with open(runs_csv, "w") as out:
                    out.write("workload,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz,epoch_time_s,avg_power_w\n")
                    for (c, f, g, m), (t, p) in zip(grid, truth):
                        t_measured, p_measured = t * rng.gauss(1, args.noise), p * rng.gauss(1, args.noise)
                        out.write(f"{name},{c},{f},{g},{m},{t_measured:.9g},{p_measured:.9g}\n")
                start = time.monotonic()
                run = subprocess.run([args.jetchar, "analyze", "predict", runs_csv, "--modes", modes_csv, "--profile",
                                      str(args.profile), "--json"], capture_output=True, text=True)
                wall = time.monotonic() - start
                # The largest resident set of any run so far (getrusage keeps the most over all children).
                peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
                if run.returncode != 0:
                    sys.exit(f"{name} draw {draw}: jetchar exited {run.returncode}: {run.stderr.strip()}")
                doc = json.loads(run.stdout)
                predictions = doc["predictions"]
                time_mape = 100 * sum(abs(p["time_s"]["value"] / t - 1) for p, (t, _) in zip(predictions, truth)) / len(grid)
                power_mape = 100 * sum(abs(p["power_w"]["value"] / w - 1) for p, (_, w) in zip(predictions, truth)) / len(grid)
                held_out = doc["held_out"][0]
                forms = predictions[0]["model"].removeprefix("auto:")
                print(f"{name:12} {draw:>4} {forms:28} {time_mape:6.2f} {power_mape:6.2f} "
                      f"{held_out['time_mape_pct']:14.2f} {held_out['power_mape_pct']:6.2f} {wall:6.2f} {peak_mib:5.0f}",
                      flush=True)


if __name__ == "__main__":
    main()
