#!/usr/bin/env python3
"""doctor against its floor, its predecessor and its targets, in one run.

    python3 benches/harness.py [--runs N] [--quick] [--static] [--doctor PATH] [--floor PATH]
                               [--reference PATH | --no-reference] [--reference-runs N]
                               [--scaling-runs N] [--sizes 1,2,4,...]

Every figure is measured side by side in this one run, the programs of a table
interleaved run by run (the order reversed every other round) so that the machine's
noise falls on all of them alike:

(a) large home (benches/gen_homes.py's `large`: an 8 MiB ~/.claude.json with 20,000
    servers): the floor (benches/floor, `mcp-warden-floor`) and doctor, text report
    and --json: median wall, mean CPU (user + sys of the process tree), the ratio
    doctor/floor of each, and the report's bytes;
(b) realistic home: doctor next to the earlier implementation (PyPI mcp-warden-cli
    2.2.0 in target/bench-ref, as benches/run.py installs it; --reference names an
    existing one), with the ratio; both without MCP_WARDEN_RESOURCE_REPORT, as a
    user runs them;
(c) scaling: a ~/.claude.json of 1 to 64 MiB in two series, written deterministically
    under target/bench-homes/scaling-*/: fixed servers (4,001) and growing ignored
    history (benches/claude_json_cap.py's generator; ms per MiB of history), and
    growing servers with no history (benches/gen_homes.py's; µs per server). Slopes
    are between the smallest and the largest size, doctor's next to the floor's;
(d) memory: peak RSS of the parent, of the parser child and of both at once
    (MCP_WARDEN_RESOURCE_REPORT=1, parsed as benches/run.py does) on the large home
    and the scaling homes, against the target 2 × file size + 1 KiB per server.

Binaries: doctor is target/release/mcp-warden and the floor
target/release/mcp-warden-floor, built (release, `nice`) if missing; with --static,
both are built as the release ships doctor (scripts/build-release.sh: static musl,
--target x86_64-unknown-linux-musl, target/static), so each is measured without an
interpreter or shared libraries to load. doctor runs with
--home, --platform linux and an empty --system-root in (a), (c), (d), so it reads the
one file the floor reads; (b) runs both implementations as benches/run.py does. The
output is Markdown, ready for docs/performance.md. --quick (2 runs, sizes up to
8 MiB, one reference run) is a smoke test; its figures mean little. Nothing is
asserted: the tables say what was measured.
"""
import argparse
import json
import os
import platform
import random
import re
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benches"))
import claude_json_cap  # noqa: E402
import gen_homes  # noqa: E402
import run as bench_run  # noqa: E402

MIB = 1024 * 1024
HOMES = os.path.join(ROOT, "target", "bench-homes")
EMPTY_SYSTEM = os.path.join(HOMES, "empty-system-root")
RESOURCES = re.compile(
    rb"resources: parent_max_rss_kib=(-?\d+) child_max_rss_kib=(-?\d+) parent_max_rss_while_child_kib=(-?\d+)"
    rb"(?: parent_rss_file_kib=(-?\d+))?")
# (what, measured, "≤" or "≥", limit, format), filled in by the tables.
TARGETS = []
ENV = {"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "NO_COLOR": "1",
       "MCP_WARDEN_RESOURCE_REPORT": "1"}


# --- binaries and homes ------------------------------------------------------------

STATIC_TARGET = "x86_64-unknown-linux-musl"


def binary(explicit, name, package, static=False):
    """`explicit`, or the release build of `name`: target/release (built if missing),
    or with `static` the static musl build scripts/build-release.sh ships (the same
    flags and target dir, rebuilt every time so it is never stale)."""
    if explicit:
        return os.path.abspath(explicit)
    if static:
        env = dict(os.environ)
        env["RUSTFLAGS"] = (env.get("RUSTFLAGS", "") + " -C target-feature=+crt-static").strip()
        env.setdefault("CC_x86_64_unknown_linux_musl", "musl-gcc")  # ring's C code
        subprocess.run(["nice", "cargo", "build", "--release", "--locked", "--quiet", "-p", package,
                        "--bin", name, "--target", STATIC_TARGET, "--target-dir",
                        os.path.join(ROOT, "target", "static")], cwd=ROOT, check=True, env=env)
        return os.path.join(ROOT, "target", "static", STATIC_TARGET, "release", name)
    path = os.path.join(ROOT, "target", "release", name)
    if not os.path.exists(path):
        subprocess.run(["nice", "cargo", "build", "--release", "--locked", "--quiet", "-p", package,
                        "--bin", name], cwd=ROOT, check=True)
    return path


def count_servers(path):
    with open(path, "rb") as f:
        doc = json.load(f)
    total = len(doc.get("mcpServers") or {})
    for project in (doc.get("projects") or {}).values():
        total += len(project.get("mcpServers") or {})
    return total


def described(root):
    """The home at `root` (with home/ and work/) and its ~/.claude.json's size and
    server count, cached in root/meta.json."""
    path = os.path.join(root, "home", ".claude.json")
    meta_path = os.path.join(root, "meta.json")
    size = os.path.getsize(path)
    try:
        with open(meta_path) as f:
            meta = json.load(f)
        if meta.get("bytes") == size:
            return meta
    except (OSError, ValueError):
        pass
    meta = {"root": root, "bytes": size, "servers": count_servers(path)}
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    return meta


def gen_home(root, make):
    """Writes root/home/.claude.json from make() unless it exists, and root/work."""
    path = os.path.join(root, "home", ".claude.json")
    if not os.path.exists(path):
        gen_homes.write(path, make())
    os.makedirs(os.path.join(root, "work"), exist_ok=True)
    return described(root)


def large_home():
    root = os.path.join(HOMES, "large")
    if not os.path.exists(os.path.join(root, "home", ".claude.json")):
        gen_homes.large(root)
    return described(root)


def realistic_home():
    root = os.path.join(HOMES, "realistic")
    if not os.path.exists(os.path.join(root, "home", ".claude.json")):
        gen_homes.realistic(root)
    return root


def servers_only(size):
    """A minified ~/.claude.json of about `size` bytes that is all server maps: 4
    servers per project, no history (benches/gen_homes.py's claude_json)."""
    per_project = len(gen_homes.claude_json(random.Random(size), 1000, 4, 0, indent=None)) / 1000
    projects = max(1, int(size * 0.995 / per_project))
    text = gen_homes.claude_json(random.Random(size), projects, 4, 0, indent=None)
    while len(text) > size:
        projects = int(projects * size / len(text) * 0.995)
        text = gen_homes.claude_json(random.Random(size), projects, 4, 0, indent=None)
    return text


def scaling_homes(series, sizes):
    homes = []
    for mib in sizes:
        root = os.path.join(HOMES, f"scaling-{series}", f"{mib}m")
        make = (lambda m=mib: claude_json_cap.realistic(m * MIB)) if series == "history" \
            else (lambda m=mib: servers_only(m * MIB))
        meta = gen_home(root, make)
        assert meta["bytes"] <= mib * MIB, (series, mib, meta["bytes"])
        homes.append(dict(meta, mib=mib))
    return homes


# --- measuring -------------------------------------------------------------------

def floor_argv(floor, home, json_report=False):
    return [floor, "--home", os.path.join(home, "home")] + (["--json"] if json_report else [])


def doctor_argv(doctor, home, json_report=False):
    return [doctor, "doctor", "--home", os.path.join(home, "home"), "--platform", "linux",
            "--system-root", EMPTY_SYSTEM] + (["--json"] if json_report else [])


def run_once(argv, cwd, env=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env or ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = RESOURCES.search(proc.stderr)
    return wall, cpu, proc.returncode, tuple(int(g) if g else -1 for g in m.groups()) if m else None


def interleaved(cases, runs, warmups, env=None):
    """cases: {label: (argv, cwd)}. Runs every case once per round (in `env`, else
    ENV), `warmups` rounds discarded; returns per label the median wall ms, mean CPU
    ms, exit codes and peak memory (parent, child, both at once) in KiB."""
    samples = {label: {"wall": [], "cpu": [], "exit": set(), "mem": []} for label in cases}
    order = list(cases)
    for i in range(warmups + runs):
        for label in (order if i % 2 == 0 else order[::-1]):
            wall, cpu, code, mem = run_once(*cases[label], env)
            if i < warmups:
                continue
            s = samples[label]
            s["wall"].append(wall)
            s["cpu"].append(cpu)
            s["exit"].add(code)
            if mem:
                s["mem"].append(mem)
    out = {}
    for label, s in samples.items():
        parent = max((m[0] for m in s["mem"]), default=None)
        child = max((m[1] for m in s["mem"]), default=None)
        # The peaks are not simultaneous: while the child lived the parent held at
        # most its peak up to the reap; afterwards only the parent runs.
        both = max((max(m[0], m[1] + m[2]) for m in s["mem"]), default=None)
        # File pages (the program's code, the libraries') in the parent at the end,
        # included in every peak; the child maps the same executable.
        files = max((m[3] for m in s["mem"]), default=None)
        out[label] = {"wall": statistics.median(s["wall"]) * 1000, "cpu": statistics.mean(s["cpu"]) * 1000,
                      "exit": ",".join(str(c) for c in sorted(s["exit"])),
                      "parent": parent, "child": child, "both": both, "files": files}
    return out


def output_bytes(argv, cwd):
    proc = subprocess.run(argv, cwd=cwd, env=ENV, capture_output=True)
    return len(proc.stdout)


def completed(result):
    """Whether every run exited 0 or 1 (doctor's exit with findings)."""
    return set(result["exit"].split(",")) <= {"0", "1"}


def ratio(a, b):
    return f"{a / b:.2f}×" if b else "—"


# --- the tables ----------------------------------------------------------------

def large_table(doctor, floor, runs, warmups):
    home = large_home()
    root, cwd = home["root"], os.path.join(home["root"], "work")
    cases = {}
    for kind, json_report in (("text", False), ("--json", True)):
        cases[("floor", kind)] = (floor_argv(floor, root, json_report), cwd)
        cases[("doctor", kind)] = (doctor_argv(doctor, root, json_report), cwd)
    r = interleaved(cases, runs, warmups)
    print(f"### (a) Large home: doctor and the floor\n\n`large`: {home['bytes']:,} bytes, "
          f"{home['servers']:,} servers; {runs} runs, median wall, mean CPU (user + sys).\n")
    print("| report | floor wall ms | doctor wall ms | doctor/floor wall | floor CPU ms | doctor CPU ms "
          "| doctor/floor CPU | floor bytes | doctor bytes | exit floor, doctor |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind in ("text", "--json"):
        f, d = r[("floor", kind)], r[("doctor", kind)]
        fb = output_bytes(cases[("floor", kind)][0], cwd)
        db = output_bytes(cases[("doctor", kind)][0], cwd)
        print(f"| {kind} | {f['wall']:.1f} | {d['wall']:.1f} | **{ratio(d['wall'], f['wall'])}** | "
              f"{f['cpu']:.1f} | {d['cpu']:.1f} | **{ratio(d['cpu'], f['cpu'])}** | {fb:,} | {db:,} | "
              f"{f['exit']}, {d['exit']} |")
    print()
    for kind in ("text", "--json"):
        TARGETS.append((f"large home, {kind}: doctor within 1.5× of the floor (wall)",
                        r[("doctor", kind)]["wall"] / r[("floor", kind)]["wall"], "≤", 1.5, "{:.2f}×"))
    return home, r[("floor", "text")], r[("doctor", "text")]


def realistic_table(doctor, reference, runs, warmups):
    root = realistic_home()
    cwd = os.path.join(root, "work")
    argv = ["doctor", "--home", os.path.join(root, "home"), "--platform", "linux"]
    # Without MCP_WARDEN_RESOURCE_REPORT: the earlier implementation writes no such
    # report, and reading doctor's peaks from /proc is about 3 % of its run here.
    plain = {k: v for k, v in ENV.items() if k != "MCP_WARDEN_RESOURCE_REPORT"}
    r = interleaved({"doctor": ([doctor] + argv, cwd), "earlier": ([reference] + argv, cwd)}, runs, warmups,
                    plain)
    d, e = r["doctor"], r["earlier"]
    print(f"### (b) Realistic home: doctor and the earlier implementation\n\n`realistic` "
          f"(benches/gen_homes.py); earlier = mcp-warden-cli 2.2.0 (`{reference}`); {runs} runs each, "
          "interleaved.\n")
    print("| | doctor | earlier | earlier/doctor |")
    print("|---|---|---|---|")
    print(f"| wall ms (median) | {d['wall']:.1f} | {e['wall']:.1f} | **{e['wall'] / d['wall']:.0f}×** |")
    print(f"| CPU ms (mean) | {d['cpu']:.1f} | {e['cpu']:.1f} | {e['cpu'] / d['cpu']:.0f}× |")
    print(f"| exit | {d['exit']} | {e['exit']} | |")
    print()
    TARGETS.append(("realistic home: at most 1/200 of the earlier implementation (wall)",
                    e["wall"] / d["wall"], "≥", 200, "{:.0f}×"))


def scaling_table(doctor, floor, series, sizes, runs, warmups):
    homes = scaling_homes(series, sizes)
    rows = []
    for h in homes:
        cwd = os.path.join(h["root"], "work")
        r = interleaved({"floor": (floor_argv(floor, h["root"]), cwd),
                         "doctor": (doctor_argv(doctor, h["root"]), cwd)}, runs, warmups)
        rows.append((h, r["floor"], r["doctor"]))
    what = ("fixed servers, growing ignored history" if series == "history"
            else "growing servers, no history")
    print(f"### (c) Scaling: {what}\n\n`target/bench-homes/scaling-{series}/`; text report; "
          f"{runs} runs, median wall.\n")
    print("| size | bytes | servers | floor wall ms | doctor wall ms | doctor/floor | floor CPU ms | doctor CPU ms "
          "| exit floor, doctor |")
    print("|---|---|---|---|---|---|---|---|---|")
    for h, f, d in rows:
        print(f"| {h['mib']} MiB | {h['bytes']:,} | {h['servers']:,} | {f['wall']:.1f} | {d['wall']:.1f} | "
              f"{ratio(d['wall'], f['wall'])} | {f['cpu']:.1f} | {d['cpu']:.1f} | {f['exit']}, {d['exit']} |")
    # A size at which doctor failed (exit 2: a bound refused the file) did not do the
    # work; slopes are taken over the sizes it completed.
    complete = [row for row in rows if completed(row[2])]
    if len(complete) < 2:
        print("\ndoctor completed fewer than two sizes: no slope.\n")
        return rows
    if len(complete) < len(rows):
        print(f"\ndoctor exited 2 at {', '.join(str(h['mib']) for h, _, d in rows if not completed(d))} MiB "
              "(a bound refused the file); those sizes are left out of the slopes.")
    (h0, f0, d0), (h1, f1, d1) = complete[0], complete[-1]
    if series == "history":
        mib = (h1["bytes"] - h0["bytes"]) / MIB
        unit, per = "ms per MiB of history", lambda a, b: (b - a) / mib if mib else float("nan")
        fmt = "{:.2f}"
    else:
        n = h1["servers"] - h0["servers"]
        unit, per = "µs per server", lambda a, b: (b - a) * 1000 / n if n else float("nan")
        fmt = "{:.2f}"
    print(f"\n{unit}, {h0['mib']} → {h1['mib']} MiB, wall (CPU): doctor **{fmt.format(per(d0['wall'], d1['wall']))}** "
          f"({fmt.format(per(d0['cpu'], d1['cpu']))}), floor {fmt.format(per(f0['wall'], f1['wall']))} "
          f"({fmt.format(per(f0['cpu'], f1['cpu']))}).\n")
    limit = 0.5 if series == "history" else 3
    TARGETS.append((f"{h0['mib']}–{h1['mib']} MiB: {unit} (doctor, wall)", per(d0["wall"], d1["wall"]), "≤", limit,
                    "{:.2f}"))
    return rows


def memory_table(large, scaling_rows):
    print("### (d) Peak memory against 2 × file size + 1 KiB per server\n\n"
          "KiB; parent `VmHWM`, child `getrusage(RUSAGE_CHILDREN)`, both at once ≤ max(parent, child + "
          "parent up to the reap); the largest over the runs. File pages: the parent's resident file pages "
          "at the end (`RssFile`: its code and the libraries', shared with the page cache), part of every "
          "peak; the child maps the same executable.\n")
    print("| home | bytes | servers | target KiB | doctor parent | doctor child | doctor both | doctor both / target "
          "| floor both | floor both / target | file pages doctor, floor |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    rows = [("large", *large)] + [(f"{os.path.basename(os.path.dirname(h['root']))} {h['mib']} MiB", h, f, d)
                                  for h, f, d in scaling_rows]
    for name, h, f, d in rows:
        if not completed(d):
            name += " (doctor exit 2)"
        target = (2 * h["bytes"] + 1024 * h["servers"]) / 1024
        def share(m):
            return f"{m / target:.2f}" if m is not None else "—"
        print(f"| {name} | {h['bytes']:,} | {h['servers']:,} | {target:,.0f} | {d['parent']} | {d['child']} | "
              f"{d['both']} | **{share(d['both'])}** | {f['both']} | {share(f['both'])} | "
              f"{d['files']}, {f['files']} |")
        if completed(d):
            worst = max(worst, d["both"] / target if d["both"] is not None else float("inf"))
    print()
    TARGETS.append(("peak memory of both processes ≤ 2 × file + 1 KiB per server (doctor, worst completed home)",
                    worst, "≤", 1, "{:.2f} of the target"))


def targets_table():
    print("### Against the targets\n")
    print("| target | measured | |")
    print("|---|---|---|")
    for what, value, op, limit, fmt in TARGETS:
        met = value <= limit if op == "≤" else value >= limit
        print(f"| {what} | {fmt.format(value)} | {'met' if met else '**not met**'} |")
    print()


def build_id():
    def git(*args):
        p = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return p.stdout.strip()
    dirty = "+changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    return git("rev-parse", "--short", "HEAD") + dirty


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="2 runs, sizes up to 8 MiB (a smoke test)")
    ap.add_argument("--doctor")
    ap.add_argument("--floor")
    ap.add_argument("--static", action="store_true",
                    help="doctor and the floor as the release ships them: static musl, "
                         "built like scripts/build-release.sh into target/static")
    ap.add_argument("--reference", help="the earlier implementation's mcp-warden (else target/bench-ref)")
    ap.add_argument("--no-reference", action="store_true")
    ap.add_argument("--reference-runs", type=int, help="runs of (b) (default: --runs, at most 10)")
    ap.add_argument("--scaling-runs", type=int, help="runs per size in (c) (default: --runs, at most 5)")
    ap.add_argument("--sizes", help="MiB sizes of (c), comma-separated (default 1,2,4,...,64)")
    args = ap.parse_args()
    runs = 2 if args.quick else args.runs
    warmups = 1 if args.quick else 3
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else \
        ([1, 2, 4, 8] if args.quick else [1, 2, 4, 8, 16, 32, 64])
    reference_runs = args.reference_runs or (1 if args.quick else min(runs, 10))
    scaling_runs = args.scaling_runs or min(runs, 5)

    doctor = binary(args.doctor, "mcp-warden", "mcp-warden-cli", args.static)
    floor = binary(args.floor, "mcp-warden-floor", "mcp-warden-floor", args.static)
    reference = None if args.no_reference else bench_run.reference_binary(args.reference)
    os.makedirs(EMPTY_SYSTEM, exist_ok=True)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Linux {platform.release()}; "
          f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}; build: {build_id()}; doctor: `{doctor}`; "
          f"floor: `{floor}`; load average at start: {os.getloadavg()[0]:.2f}\n")
    large, floor_text, doctor_text = large_table(doctor, floor, runs, warmups)
    if reference:
        realistic_table(doctor, reference, reference_runs, 1)
    rows = []
    for series in ("history", "servers"):
        rows += scaling_table(doctor, floor, series, sizes, scaling_runs, 1)
    memory_table((large, floor_text, doctor_text), rows)
    targets_table()
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
