#!/usr/bin/env bash
# Differential check of the auth audit: the earlier Python implementation against
# ours, over every config in corpus/, compared on (rule id, server, severity).
#
#   scripts/differential/run.sh [CORPUS_DIR]
#
# Environment:
#   WARDEN_REF   the earlier CLI (when it is unset or
#                missing, mcp-warden-cli==2.2.0 is installed into a local venv)
#   WARDEN_OURS  our CLI binary; when unset or when it has no `auth audit` command,
#                the engines are driven through the `differential_dump` unit test
#
# reference/ holds the earlier implementation's recorded output for the corpus.
#
# Prints every difference as `ref-only` / `ours-only` lines, then compares the set
# of differences with expected-differences.txt (each one is a deliberate divergence
# documented in docs/divergences-engines.md). Exit 0 when they match, 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=${1:-$here/corpus}
out=$here/out
mkdir -p "$out/ref" "$out/ours"

ref=${WARDEN_REF:-}
if [ -z "$ref" ] || [ ! -x "$ref" ]; then
    python3 -m venv "$out/venv"
    "$out/venv/bin/pip" install --quiet 'mcp-warden-cli==2.2.0'
    ref=$out/venv/bin/mcp-warden
fi

for f in "$corpus"/*.json; do
    name=$(basename "$f" .json)
    # Exit 1 means "findings"; only 2 (unreadable config) is an error.
    rc=0
    "$ref" auth audit "$f" --json >"$out/ref/$name.jsonl" || rc=$?
    [ "$rc" -le 1 ] || { echo "reference failed on $f (exit $rc)" >&2; exit 2; }
done

ours=${WARDEN_OURS:-}
if [ -n "$ours" ] && "$ours" auth audit --help >/dev/null 2>&1; then
    for f in "$corpus"/*.json; do
        name=$(basename "$f" .json)
        rc=0
        "$ours" auth audit "$f" --json >"$out/ours/$name.jsonl" || rc=$?
        [ "$rc" -le 1 ] || { echo "ours failed on $f (exit $rc)" >&2; exit 2; }
    done
else
    echo "note: no \`auth audit\` CLI given (WARDEN_OURS); driving the engines through the unit test" >&2
    dump=$out/ours-dump.txt
    (cd "$root" && CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target} DIFF_CORPUS="$corpus" cargo test --quiet --lib engines::tests::differential_dump \
        -- --ignored --nocapture --test-threads=1) >"$dump" 2>/dev/null
    python3 - "$dump" "$out/ours" <<'PY'
import sys, pathlib
dump, outdir = sys.argv[1], pathlib.Path(sys.argv[2])
cur = None
files = {}
for line in open(dump, encoding="utf-8"):
    if line.startswith("# file "):
        cur = line[len("# file "):].strip().removesuffix(".json")
        files[cur] = []
    elif line.startswith("{") and cur is not None:
        files[cur].append(line)
for name, lines in files.items():
    (outdir / f"{name}.jsonl").write_text("".join(lines), encoding="utf-8")
PY
fi

python3 - "$out" "$here/expected-differences.txt" <<'PY'
import collections, json, pathlib, sys
out, expected_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])

def server(target):
    # `mcpServers/<name>` (reference, unit test) or `<label>#<name>` (doctor-style).
    if "#" in target:
        return target.split("#", 1)[1]
    return target.split("/", 1)[1] if target.startswith("mcpServers/") else target

def rows(path):
    c = collections.Counter()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                c[(r["rule_id"], server(r["target"]), r["severity"])] += 1
    return c

diffs = []
for ref_file in sorted((out / "ref").glob("*.jsonl")):
    name = ref_file.stem
    ref, ours = rows(ref_file), rows(out / "ours" / ref_file.name)
    for key in sorted(set(ref) | set(ours)):
        d = ours[key] - ref[key]
        if d:
            side = "ours-only" if d > 0 else "ref-only"
            for _ in range(abs(d)):
                diffs.append(f"{name}\t{side}\t{key[0]}\t{key[1]}\t{key[2]}")
for d in diffs:
    print(d)
print(f"{len(diffs)} difference(s)")
expected = []
if expected_path.exists():
    expected = [l for l in expected_path.read_text(encoding="utf-8").splitlines() if l and not l.startswith("#")]
have, want = collections.Counter(diffs), collections.Counter(expected)
unexpected = sorted((have - want).elements())
missing = sorted((want - have).elements())
for u in unexpected:
    print(f"UNEXPECTED\t{u}")
for m in missing:
    print(f"EXPECTED BUT ABSENT\t{m}")
sys.exit(1 if unexpected or missing else 0)
PY
