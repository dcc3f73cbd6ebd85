#!/usr/bin/env python3
"""Two builds of mcp-warden must print the same bytes: the check behind every
performance change.

    python3 benches/same_output.py OLD-BINARY [NEW-BINARY] [--only SUBSTRING]

Runs both binaries on the same inputs and compares stdout, stderr and the exit code
of each run (the SARIF log too, where one is written):

* the homes of benches/gen_homes.py (realistic, every-client, large, the hostile
  homes, approval-5k) with `doctor` (text, `--json`, `--sarif FILE`, `--servers`)
  and `auth audit` of the home's configs, cwd = the home's `work/`;
* every shape of benches/adversarial.py at its quick sizes (64 and 512 KiB), in the
  modes the shape is measured in;
* every file of the shared corpus of real configs (`../shared/corpus/mcp-configs`,
  when it is there) as `doctor --config FILE --no-discover`, text and `--json`.

NEW-BINARY defaults to target/release/mcp-warden. Prints each difference (the first
differing line of each stream) and exits 1 if there was one, 0 otherwise. It is a
tool for changes that must not change output, not a test of what the output should
be.
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benches"))
import adversarial  # noqa: E402

HOMES = os.path.join(ROOT, "target", "bench-homes")
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "mcp-configs")
ENV = {"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "NO_COLOR": "1"}
# A system root with nothing in it, so the machine's own managed files never enter.
EMPTY_SYSTEM = os.path.join(HOMES, "empty-system-root")


def run(binary, argv, cwd, sarif=None):
    """stdout, stderr, exit code, and the SARIF file's bytes when `sarif` names one."""
    if sarif and os.path.exists(sarif):
        os.remove(sarif)
    proc = subprocess.run([binary] + argv, cwd=cwd, env=ENV, capture_output=True, timeout=300)
    written = None
    if sarif and os.path.exists(sarif):
        with open(sarif, "rb") as f:
            written = f.read()
    return proc.stdout, proc.stderr, proc.returncode, written


def first_difference(a, b):
    if a is None or b is None:
        return f"one run wrote nothing ({'old' if a is None else 'new'})"
    for i, (x, y) in enumerate(zip(a.split(b"\n"), b.split(b"\n"))):
        if x != y:
            return f"line {i + 1}:\n      old: {x[:300]!r}\n      new: {y[:300]!r}"
    return f"lengths {len(a)} and {len(b)} (one is a prefix of the other)"


def compare(label, old, new, argv, cwd, sarif=None):
    a = run(old, argv, cwd, sarif)
    b = run(new, argv, cwd, sarif)
    problems = []
    for name, x, y in (("stdout", a[0], b[0]), ("stderr", a[1], b[1]), ("sarif", a[3], b[3])):
        if x != y:
            problems.append(f"  {name}: {first_difference(x, y)}")
    if a[2] != b[2]:
        problems.append(f"  exit: {a[2]} and {b[2]}")
    if problems:
        print(f"DIFFERENT {label}: {' '.join(argv)}")
        print("\n".join(problems))
        return False
    return True


def home_cases():
    if not os.path.isdir(os.path.join(HOMES, "large")):
        subprocess.run([sys.executable, os.path.join(ROOT, "benches", "gen_homes.py")], check=True,
                       stdout=subprocess.DEVNULL)
    os.makedirs(EMPTY_SYSTEM, exist_ok=True)
    for name in ("realistic", "every-client", "large", "hostile-comment", "hostile-nesting",
                 "hostile-string", "hostile-locktree", "approval-5k"):
        root = os.path.join(HOMES, name)
        if not os.path.isdir(root):
            continue
        home, work = os.path.join(root, "home"), os.path.join(root, "work")
        base = ["doctor", "--home", home, "--platform", "linux", "--system-root", EMPTY_SYSTEM]
        sarif = os.path.join(tempfile.gettempdir(), "same-output.sarif")
        for extra in ([], ["--json"], ["--servers"], ["--sarif", sarif]):
            yield name, base + extra, work, (sarif if extra[:1] == ["--sarif"] else None)
        configs = [os.path.join(dirpath, f) for dirpath, _, files in os.walk(home) for f in files]
        if configs and len(configs) < 200:
            yield name, ["auth", "audit"] + sorted(configs), work, None


def adversarial_cases(scratch):
    for title, _, modes, generate in adversarial.SHAPES:
        for size in (adversarial.QUICK_SIZES[0], adversarial.QUICK_SIZES[-1]):
            root = os.path.join(scratch, f"shape-{abs(hash(title))}-{size}")
            files = generate(size)
            adversarial.materialise(root, files)
            for mode in modes:
                argv = adversarial.argv_for("BINARY", root, files, mode)[1:]
                sarif = os.path.join(root, "out.sarif") if mode == "sarif" else None
                yield f"{title} ({size // 1024} KiB, {mode})", argv, os.path.join(root, "work"), sarif


def corpus_cases():
    if not os.path.isdir(CORPUS):
        return
    for dirpath, _, files in sorted(os.walk(CORPUS)):
        for f in sorted(files):
            if f == "SOURCES.md":
                continue
            path = os.path.join(dirpath, f)
            for extra in ([], ["--json"]):
                yield f"corpus {f}", ["doctor", "--config", path, "--no-discover"] + extra, ROOT, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new", nargs="?", default=os.path.join(ROOT, "target", "release", "mcp-warden"))
    ap.add_argument("--only", help="only the cases whose label contains this text")
    args = ap.parse_args()
    old, new = os.path.abspath(args.old), os.path.abspath(args.new)
    same = differ = 0
    with tempfile.TemporaryDirectory() as scratch:
        for label, argv, cwd, sarif in (*home_cases(), *adversarial_cases(scratch), *corpus_cases()):
            if args.only and args.only not in label:
                continue
            if compare(label, old, new, argv, cwd, sarif):
                same += 1
            else:
                differ += 1
    print(f"{same} runs alike, {differ} different")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
