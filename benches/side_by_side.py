#!/usr/bin/env python3
"""Two builds of mcp-warden on the same synthetic homes, alternating run by run.

    python3 benches/side_by_side.py OLD-BINARY [NEW-BINARY] [--runs N] [--homes a,b,...] [--json]

On a noisy machine a ratio is only worth something when both builds ran under the
same load: each run of one build is followed by a run of the other, the order
swapped every round. Both executables are first copied into a fresh temporary
directory: how an executable's pages sit in the page cache changes its start by up
to 8 % (a copy made hours earlier started 0.92x as fast as a fresh copy of the
same bytes), which a build just written and an old copy do not share. Prints the
median wall time of each and their ratio, per home (from benches/gen_homes.py,
written into target/bench-homes/), for the text report or, with --json, the JSONL
one. Nothing is asserted.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new", nargs="?", default=os.path.join(ROOT, "target/release/mcp-warden"))
    ap.add_argument("--runs", type=int, default=31)
    ap.add_argument("--homes", default="realistic,every-client,large,hostile-comment,hostile-string")
    ap.add_argument("--json", action="store_true", help="time doctor --json instead of the text report")
    args = ap.parse_args()
    homes_root = os.path.join(ROOT, "target/bench-homes")
    if not os.path.isdir(homes_root):
        subprocess.run(["python3", os.path.join(ROOT, "benches/gen_homes.py")], check=True)
    fresh = tempfile.mkdtemp(prefix="side-by-side-")
    bins = {}
    for k, path in (("old", args.old), ("new", args.new)):
        bins[k] = os.path.join(fresh, k)
        shutil.copy2(path, bins[k])
    try:
        compare(args, homes_root, bins)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


def compare(args, homes_root, bins):
    for home in args.homes.split(","):
        argv = ["doctor", "--home", os.path.join(homes_root, home, "home"), "--platform", "linux"]
        if args.json:
            argv.append("--json")
        cwd = os.path.join(homes_root, home, "work")
        times = {k: [] for k in bins}
        order = list(bins.items())
        for i in range(args.runs + 2):
            for k, b in order if i % 2 == 0 else order[::-1]:
                start = time.perf_counter()
                subprocess.run([b] + argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                if i >= 2:  # two warm-ups
                    times[k].append(time.perf_counter() - start)
        med = {k: statistics.median(v) * 1000 for k, v in times.items()}
        print(f"| {home} | {med['new']:.1f} | {med['old']:.1f} | {med['new'] / med['old']:.2f} |")


if __name__ == "__main__":
    main()
