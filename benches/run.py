#!/usr/bin/env python3
"""End-to-end doctor benchmark: ours next to the earlier implementation, same homes,
same run.

    benches/run.py [--runs N] [--reference PATH/TO/mcp-warden] [--out FILE]

Builds the release binary, writes the synthetic homes (benches/gen_homes.py), and for
each home measures over N runs after 3 warm-ups: median wall time, mean user and
system CPU (of the whole process tree), and peak resident memory of the parent and
of the parser child (reported by mcp-warden itself with MCP_WARDEN_RESOURCE_REPORT=1,
from getrusage). The earlier implementation (pip package mcp-warden-cli 2.2.0) is
installed into target/bench-ref unless --reference names one. Prints a Markdown
table; docs/performance.md holds the last published one.
"""
import argparse
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ["realistic", "large", "hostile-comment", "hostile-nesting", "hostile-string", "hostile-locktree"]


def sh(*args, **kw):
    return subprocess.run(args, check=True, **kw)


def reference_binary(explicit):
    if explicit:
        return explicit
    venv = os.path.join(ROOT, "target", "bench-ref")
    binary = os.path.join(venv, "bin", "mcp-warden")
    if not os.path.exists(binary):
        sh(sys.executable, "-m", "venv", venv)
        sh(os.path.join(venv, "bin", "pip"), "install", "-q", "mcp-warden-cli==2.2.0")
    return binary


def measure(argv, cwd, runs, env):
    walls, cpu_user, cpu_sys, codes, parent_rss, child_rss, together = [], [], [], set(), [], [], []
    for i in range(runs + 3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if i < 3:
            continue
        walls.append(wall)
        cpu_user.append(after.ru_utime - before.ru_utime)
        cpu_sys.append(after.ru_stime - before.ru_stime)
        codes.add(proc.returncode)
        m = re.search(rb"parent_max_rss_kib=(\d+) child_max_rss_kib=(\d+) parent_max_rss_while_child_kib=(\d+)",
                      proc.stderr)
        if m:
            parent, child, parent_then = (int(g) for g in m.groups())
            parent_rss.append(parent)
            child_rss.append(child)
            # The two peaks are not simultaneous: while the child lived, the parent
            # held at most parent_then; afterwards only the parent runs.
            together.append(max(parent, child + parent_then))
    return {
        "wall_ms": statistics.median(walls) * 1000,
        "user_ms": statistics.mean(cpu_user) * 1000,
        "sys_ms": statistics.mean(cpu_sys) * 1000,
        "exit": ",".join(str(c) for c in sorted(codes)),
        "parent_kib": max(parent_rss) if parent_rss else None,
        "child_kib": max(child_rss) if child_rss else None,
        "together_kib": max(together) if together else None,
    }


def scaling(ours, homes, runs, env):
    """Hostile inputs at 1, 2, 4 and 8 MiB: wall time must grow linearly with size."""
    mib = 1024 * 1024
    kinds = {
        "unterminated /*": (".config/Code/User/mcp.json", lambda n: b"/* " * (n // 3)),
        "nested brackets": (".cursor/mcp.json", lambda n: b"[" * n),
        "one long string": (".cursor/mcp.json", lambda n: b'{"mcpServers": {"a": {"command": "' + b"x" * (n - 64) + b'"}}}'),
    }
    print()
    print("| hostile input | 1 MiB | 2 MiB | 4 MiB | 8 MiB | ms per MiB at 8 MiB |")
    print("|---|---|---|---|---|---|")
    for name, (rel, make) in kinds.items():
        cells = []
        for size in (1, 2, 4, 8):
            root = os.path.join(homes, "scaling", f"{name.replace(' ', '-').replace('/', '')}-{size}")
            path = os.path.join(root, "home", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.makedirs(os.path.join(root, "work"), exist_ok=True)
            with open(path, "wb") as f:
                f.write(make(size * mib))
            m = measure([ours, "doctor", "--home", os.path.join(root, "home"), "--platform", "linux"],
                        os.path.join(root, "work"), runs, env)
            cells.append(m["wall_ms"])
        print(f"| {name} | " + " | ".join(f"{c:.1f}" for c in cells) + f" | {cells[-1] / 8:.2f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--reference-runs", type=int, default=None)
    ap.add_argument("--reference")
    ap.add_argument("--no-reference", action="store_true")
    ap.add_argument("--no-scaling", action="store_true")
    args = ap.parse_args()

    sh("cargo", "build", "--release", "--quiet", cwd=ROOT)
    ours = os.path.join(ROOT, "target", "release", "mcp-warden")
    homes = os.path.join(ROOT, "target", "bench-homes")
    sh(sys.executable, os.path.join(ROOT, "benches", "gen_homes.py"), homes, stdout=subprocess.DEVNULL)
    ref = None if args.no_reference else reference_binary(args.reference)

    env = {"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "MCP_WARDEN_RESOURCE_REPORT": "1", "NO_COLOR": "1"}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Linux {platform.release()}; "
          f"date: {time.strftime('%Y-%m-%d')}; runs: {args.runs} (median wall, mean CPU)")
    print()
    print("| home | ours: wall ms | user ms | sys ms | parent peak KiB | child peak KiB | both at once ≤ KiB | exit | earlier: wall ms | exit | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for case in CASES:
        home = os.path.join(homes, case, "home")
        cwd = os.path.join(homes, case, "work")
        argv = ["doctor", "--home", home, "--platform", "linux"]
        o = measure([ours] + argv, cwd, args.runs, env)
        if ref:
            r = measure([ref] + argv, cwd, args.reference_runs or args.runs, env)
            ref_cells = f"{r['wall_ms']:.1f} | {r['exit']} | {r['wall_ms'] / o['wall_ms']:.0f}×"
        else:
            ref_cells = "— | — | —"
        print(f"| {case} | {o['wall_ms']:.2f} | {o['user_ms']:.2f} | {o['sys_ms']:.2f} | "
              f"{o['parent_kib']} | {o['child_kib']} | {o['together_kib']} | {o['exit']} | {ref_cells} |")
    if not args.no_scaling:
        scaling(ours, homes, args.runs, env)


if __name__ == "__main__":
    main()
