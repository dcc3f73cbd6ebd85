#!/usr/bin/env python3
"""doctor on a large ~/.claude.json: 8, 32 and 64 MiB (its discovered cap).

    python3 benches/claude_json_cap.py [BINARY] [--runs N] [--sizes 8,32,64]

For each size two homes (written into target/bench-homes/claude-cap/): a realistic
pretty-printed file whose bulk is session history (`benches/gen_homes.py`'s
generator: 2,000 projects, two servers each), and an adversarial one whose history
is the smallest JSON values the loader must still validate (`[0,0,...]`, `{}`), the
most nodes per byte. Runs the release binary the way a user would and prints, per
home, the median wall seconds and the peak resident memory of the parser child and
of the parent (`MCP_WARDEN_RESOURCE_REPORT=1`), and the exit code (a skip or an
unreadable file would be 1 with a `skipping` warning, or 2). Nothing is asserted.
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benches"))
import gen_homes  # noqa: E402

MIB = 1024 * 1024


def realistic(size):
    # The generator's history estimate overshoots at depth; scale the target once.
    target = size - 256 * 1024
    text = gen_homes.claude_json(random.Random(size), 2000, 2, target, indent=2)
    if len(text) > size:
        target = int(target * size / len(text) * 0.99)
        text = gen_homes.claude_json(random.Random(size), 2000, 2, target, indent=2)
    return text


def small_values(size):
    doc = {"mcpServers": {"global": gen_homes.server(random.Random(0), 0)}, "projects": {}}
    head = json.dumps(doc)[:-1]
    out = [head, ', "history": [']
    total = len(head) + 14
    chunk = "[0,0,0,0,0,0,0,0,0,0],{},[],"
    reps = (size - total - 64) // len(chunk)
    out.append(chunk * reps)
    out.append("0]}")
    return "".join(out)


def home_for(kind, mib):
    root = os.path.join(ROOT, "target/bench-homes/claude-cap", f"{kind}-{mib}m")
    path = os.path.join(root, "home/.claude.json")
    if not os.path.exists(path):
        text = (realistic if kind == "history" else small_values)(mib * MIB)
        assert len(text) <= mib * MIB, (kind, mib, len(text))
        gen_homes.write(path, text)
        os.makedirs(os.path.join(root, "work"), exist_ok=True)
    return root, os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "target/release/mcp-warden"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="8,32,64")
    args = ap.parse_args()
    print("| home | bytes | exit | wall s (median) | child peak RSS MiB | parent peak RSS MiB |")
    print("|---|---|---|---|---|---|")
    for kind in ("history", "small-values"):
        for mib in (int(s) for s in args.sizes.split(",")):
            root, size = home_for(kind, mib)
            argv = [args.binary, "doctor", "--json", "--home", os.path.join(root, "home"),
                    "--platform", "linux", "--system-root", os.path.join(root, "system")]
            env = dict(os.environ, MCP_WARDEN_RESOURCE_REPORT="1")
            times, child, parent, code = [], [], [], None
            for i in range(args.runs + 1):
                start = time.perf_counter()
                p = subprocess.run(argv, cwd=os.path.join(root, "work"), env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                elapsed = time.perf_counter() - start
                code = p.returncode
                if "skipping" in p.stderr or "cannot read" in p.stderr:
                    print(p.stderr, file=sys.stderr)
                m = re.search(r"parent_max_rss_kib=(\d+) child_max_rss_kib=(\d+)", p.stderr)
                if i == 0:
                    continue  # warm-up (page cache)
                times.append(elapsed)
                if m:
                    parent.append(int(m.group(1)) / 1024)
                    child.append(int(m.group(2)) / 1024)
            print(f"| {kind}-{mib}m | {size} | {code} | {statistics.median(times):.2f} | "
                  f"{max(child) if child else -1:.0f} | {max(parent) if parent else -1:.0f} |")


if __name__ == "__main__":
    main()
