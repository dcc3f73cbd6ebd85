#!/usr/bin/env python3
"""Adversarial shapes: every engine and renderer on its worst input, at 1, 2, 4 and
8 MiB, side by side in one run.

    benches/adversarial.py [--runs N] [--binary PATH] [--reference PATH]
                           [--only SUBSTRING] [--quick | --smoke] [--timeout SECONDS] [--keep]

For each shape the harness writes a temporary home (and, where the shape needs
them, lock files in the working directory) whose hostile file grows with the size,
runs the built binary the way a user would (`doctor`, `doctor --json`,
`doctor --sarif FILE`, `auth audit FILE`, always with `--home`/`--platform linux`
and cwd = the shape's `work/`), and prints one Markdown row per shape and mode:
the median wall time per size, the time per MiB at the largest size, and the ratio
of the two largest sizes (linear ≈ 2, quadratic ≈ 4). With `--reference`, an
earlier build runs on the same inputs in the same run, one row below each.
A size that times out (`--timeout`, default 60 s) ends that row.

How a shape grows is chosen so that a quadratic cost shows: when the suspect is
the length of one string (bounded at 64 KiB by the protocol), the strings grow
with the size and their number stays fixed; when it is the length of one list
(capped here at 4,096 entries, the size the shapes were first measured at; the
protocol no longer bounds a list's length), the lists grow; when it is a count across the file
(servers sharing a name, servers against locks), the count grows.

Figures are reported, never enforced: this is not a test. `--quick` runs the same
shapes at 64–512 KiB, once each, to check that every generator still produces
input the binary accepts (about a minute with a release binary). `--smoke` runs
them at 64 and 128 KiB, once each, small enough for the debug binary the tests have
already built: `.ci/run` checks the harness that way, without a fat-LTO release
build of its own (4 minutes in a CI run on a slow two-core machine).
docs/performance.md holds the last published table.
"""
import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIB = 1024
MIB = 1024 * KIB
MAX_STRING = 64 * KIB - 64  # below the protocol's 64 KiB string bound
MAX_LIST = 4096  # this benchmark's cap on args / env / headers per server (kept so rows compare across builds)
SIZES = [1 * MIB, 2 * MIB, 4 * MIB, 8 * MIB - 16 * KIB]  # discovered files are capped at 8 MiB
QUICK_SIZES = [64 * KIB, 128 * KIB, 256 * KIB, 512 * KIB]
SMOKE_SIZES = QUICK_SIZES[:2]
LARGEST = SIZES[-1]


def dumps(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def scaled(size, at_largest):
    """`at_largest` scaled to `size` (at least 1): the growing dimension."""
    return max(1, at_largest * size // LARGEST)


MAX_SECTIONS = 19_990  # this benchmark's section count (once below a protocol bound; kept so rows compare)
MAX_SERVERS = 49_990  # below its 50,000 servers per file


def cursor(doc):
    return {"home/.cursor/mcp.json": dumps(doc)}


def padded(doc, size):
    """`doc` with an ignored top-level list of 1 KiB strings bringing it to about
    `size` bytes: for shapes whose growing count is capped by the protocol, so the
    input still has the size its column says."""
    room = size - len(dumps(doc).encode()) - 64
    if room > 1100:
        doc = dict(doc, padding=["p" * 1024] * (room // 1027))
    return doc


def fixed_count(make, at_largest, forms=1):
    """How many servers fit in the largest size when their growing part is at its
    largest: the count stays the same at every size, only the part grows."""
    probe = max(len(dumps(make(i, at_largest)).encode()) for i in range(forms))
    return max(1, (LARGEST - 4 * KIB) // (probe + 8))


def repeat_to(unit, n):
    """`unit` repeated to at most `n` UTF-8 bytes (the protocol bounds bytes)."""
    return unit * max(1, n // len(unit.encode("utf-8")))


def string_servers(size, make, forms=1):
    """A fixed number of servers whose strings grow with the size: `make(i, n)`
    builds server `i` with strings of about `n` bytes (at most 64 KiB)."""
    n = scaled(size, MAX_STRING)
    count = fixed_count(make, MAX_STRING, forms)
    return cursor({"mcpServers": {f"s{i}": make(i, n) for i in range(count)}})


def list_servers(size, item, make_server):
    """A fixed number of servers, each with a list (args, env) whose length grows
    with the size, up to this benchmark's 4,096 entries."""
    def make(i, m):
        return make_server([item(k) for k in range(m)])
    n = scaled(size, MAX_LIST)
    count = fixed_count(make, MAX_LIST)
    items = [item(k) for k in range(n)]
    return cursor({"mcpServers": {f"s{i}": make_server(items) for i in range(count)}})


def entropy_token(k, n=32):
    """A deterministic high-entropy alphanumeric token (not a vendor pattern)."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
    h = hashlib.sha256(str(k).encode()).digest() * 4
    return "".join(alphabet[b % len(alphabet)] for b in h[:n])


def sha256(text):
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def lock_doc(server, prompts, approved, overall=None):
    """A v4 lock; `overall` defaults to the digest its entries reproduce."""
    if server.get("url"):
        command_digest = sha256(dumps({"url": server["url"]}))
    else:
        command_digest = sha256(dumps({"args": server["args"], "command": server["command"]}))
    entries = [
        {"name": f"p{i}", "description_hash": "sha256:0", "arguments_hash": "sha256:0",
         "entry_digest": sha256(f"p{i}")}
        for i in range(prompts)
    ]
    if overall is None:
        overall = sha256(dumps({"prompts": [e["entry_digest"] for e in entries], "resources": [],
                                "schema_version": 4, "server": {"command_digest": command_digest},
                                "tools": []}))
    return {
        "schema_version": 4, "warden_version": "1.2.0",
        "server": {"command": server.get("command", ""), "args": server.get("args", []),
                   "url": server.get("url"), "command_digest": command_digest},
        "tools": [], "resources": [], "prompts": entries, "findings": [],
        "overall_digest": overall,
        "pin": {"created_at": "2026-01-01T00:00:00Z", "warden_version": "1.2.0",
                "mcp_protocol_version": "2025-11-25", "approved": approved,
                "approver": "a@example.com" if approved else None,
                "approved_at": "2026-01-01T00:00:00Z" if approved else None,
                "approved_digest": overall if approved else None},
    }


# --- shapes -----------------------------------------------------------------------
# Each returns {path below the shape's root: text}; `home/…` is the fake home,
# `work/…` the working directory (cwd, and the lock-search root).

def supply_subst_in_stage(size):
    # `A=1 =$( =$( …`: every word holding `$(` made the curl|sh check re-read the
    # whole simple command before it.
    return list_servers(size, lambda k: "=$(", lambda a: {"command": "A=1", "args": a})


def supply_script_subst(size):
    # The same inside one `sh -c` script: assignments and quoted substitutions.
    return string_servers(size, lambda i, n: {"command": "sh", "args": ["-c", repeat_to('A=1 "$(x)" ', n)]})


def supply_launcher_chain(size):
    # `npx -p npx -p npx …`: every `npx` starts a launch whose options run to the end.
    return list_servers(size, lambda k: "npx" if k % 2 else "-p", lambda a: {"command": "npx", "args": a})


def supply_pip_chain(size):
    # `pip install pip install …`: every `pip` is a launch whose specs run to the end.
    return list_servers(size, lambda k: "install" if k % 2 == 0 else "pip",
                        lambda a: {"command": "pip", "args": a})


def supply_pip_specs(size):
    # `pip install a1 a2 …`: one launch, thousands of specs.
    return list_servers(size, lambda k: "install" if k == 0 else f"a{k}",
                        lambda a: {"command": "pip", "args": a})


def supply_subst_nest(size):
    # Long `$(`, backtick and `<(` runs, and quoted substitutions in quotes.
    forms = ["$(", "`", "<(", '"$(']
    return string_servers(size, lambda i, n: {"command": "bash", "args": ["-c", repeat_to(forms[i % 4], n)]}, 4)


def shell_operator_runs(size):
    # Runs of one control operator, separator or quote in a script.
    forms = [";", "|", "&", "(", ")", " ", "\\", "'", '"']
    return string_servers(size, lambda i, n: {"command": "sh", "args": ["-c", repeat_to(forms[i % 9], n // 2)]}, 9)


def secrets_vendor_and_entropy(size):
    # One value holding vendor secrets and long high-entropy tokens, alternating.
    def value(n):
        parts, total, k = [], 0, 0
        while total < n:
            part = f"AKIA{entropy_token(k, 16).upper()}" if k % 2 else entropy_token(k, 28)
            parts.append(part)
            total += len(part) + 1
            k += 1
        return " ".join(parts)[:n]
    return string_servers(size, lambda i, n: {"command": "node", "env": {"NOTE": value(n)}})


def secrets_env_list(size):
    # Huge env lists of high-entropy values: thousands of findings per server.
    return list_servers(size, lambda k: (f"K{k}", entropy_token(k)),
                        lambda items: {"command": "node", "env": dict(items)})


def findings_long_name(size):
    # A long server name (in the target of every finding) times many findings.
    n = scaled(size, MAX_LIST)
    name_len = scaled(size, 32 * KIB)
    env = {f"K{k}": entropy_token(k) for k in range(n)}
    return cursor({"mcpServers": {f"{i}-" + "n" * name_len: {"command": "node", "env": env}
                                  for i in range(24)}})


def refs_nesting(size):
    # `${A:-${A:-…`, `${A:?${A:?…`, `{{{{…`, `%A%A…`, `$A$A…`, `${A}${A}…` values.
    forms = ["${A:-", "${A:?", "{{", "%A", "$A", "${A}", "${A:-x}", "${A:0:"]
    return string_servers(size, lambda i, n: {"command": "node", "env": {"API_TOKEN": repeat_to(forms[i % 8], n)}}, 8)


def keys_long_identifiers(size):
    # Long env keys and flags that split into thousands of words.
    forms = ["aB", "AUTH_", "x-Token-", "secretKey", "éÀ"]

    def make(i, n):
        key = repeat_to(forms[i % 5], n // 2)
        return {"command": "node", "args": ["--" + key, "v"], "env": {key: "value"}}
    return string_servers(size, make, 5)


def pattern_package_specs(size):
    # Package specs the pin patterns search: `@1@1…`, `pkg[[[…`, `@sha1-…`, `p@1p@1…`.
    forms = [("npx", "@1"), ("uvx", "["), ("npx", "@sha1-"), ("uvx", "p@1")]

    def make(i, n):
        command, unit = forms[i % 4]
        return {"command": command, "args": ["-y", "x" + repeat_to(unit, n)]}
    return string_servers(size, make, 4)


def mask_argument_shapes(size):
    # Auth flags and their values, KEY=value pairs and JSON objects full of auth keys.
    def item(k):
        return ["--token", f"TOKEN={entropy_token(k, 20)}",
                '{"apiKey":"' + entropy_token(k, 20) + '","auth":{"token":"x"}}'][k % 3]
    return list_servers(size, item, lambda a: {"command": "node", "args": a})


def mask_json_depth(size):
    # Deep and wide JSON arguments (the masking walks them).
    def make(i, n):
        if i % 2:
            depth = n // 14
            text = '{"a":' * depth + "1" + "}" * depth
        else:
            text = "{" + ",".join(f'"t{k}":1' for k in range(n // 14)) + "}"
        return {"command": "node", "args": ["--config", text]}
    return string_servers(size, make, 2)


def url_query_pairs(size):
    # URLs with thousands of `&` pairs, path segments, fragment pairs, or `@`.
    forms = [("https://h.example.com/mcp?", "a=b&"), ("https://h.example.com/mcp?", "token=x&"),
             ("https://h.example.com", "/seg"), ("https://h.example.com/#", "a=1&"),
             ("https://", "u@")]
    return string_servers(size, lambda i, n: {"url": forms[i % 5][0] + repeat_to(forms[i % 5][1], n - 40)}, 5)


def url_arguments(size):
    # A query-heavy URL as a launch argument (pin-command masking, supply snippets).
    return string_servers(size, lambda i, n: {"command": "curl", "args": [
        "https://h.example.com/x?" + repeat_to("a=b&", n - 40), "|", "sh"]})


def names_shared(size):
    # The same server name in many ~/.claude.json projects: every uncovered server
    # needs its own lock file name.
    projects = scaled(size, MAX_SECTIONS)
    doc = {"projects": {f"/p{i}": {"mcpServers": {"gh": {"command": "x"}}} for i in range(projects)}}
    return {"home/.claude.json": dumps(padded(doc, size))}


def names_slug_collisions(size):
    # Different names that slug alike: the separators spell the index, so every
    # name is distinct and every slug is `a-b`.
    seps = ".-_/ :+@!~"

    def name(i):
        digits = ""
        while True:
            digits += seps[i % 10]
            i //= 10
            if i == 0:
                return f"a{digits}b"
    doc = {"mcpServers": {name(i): {"command": "x"} for i in range(scaled(size, MAX_SERVERS))}}
    return cursor(padded(doc, size))


def display_keys_chain(size):
    # `a`, `a#servers`, `a#servers#`, … under mcpServers and `a` under servers: the
    # servers copy walks the whole chain to find a free key.
    names, total, k = {}, 0, 0
    while total < size - 64:
        name = "a" if k == 0 else "a#servers" + "#" * (k - 1)
        names[name] = {"command": "x"}
        total += len(name) + 20
        k += 1
    return cursor({"mcpServers": names, "servers": {"a": {"command": "y"}}})


def locks_many_vs_many(size):
    # Many locks against many servers, none matching, every launch sharing a
    # prefix: comparing each server with each lock reads the prefix every time.
    prefix = "--config=" + "x" * 96
    locks = scaled(size, 1000)
    servers = scaled(size, MAX_SERVERS)
    files = cursor(padded({"mcpServers": {f"s{i}": {"command": "node", "args": [prefix, f"pkg-{i}"]}
                                          for i in range(servers)}}, size - locks * 1100))
    for j in range(locks):
        server = {"command": "node", "args": [prefix, f"lock-{j}"]}
        files[f"work/l/{j // 100}/l{j}.warden.lock"] = dumps(lock_doc(server, 0, approved=True))
    return files


def locks_inconsistent_big(size):
    # One approved but inconsistent lock with many entries, matched by many servers:
    # its digests were recomputed once per server.
    url = "https://h.example.com/mcp"
    servers = min(MAX_SERVERS, max(1, (size // 2) // 80))
    prompts = max(1, (size // 2) // 150)
    files = cursor({"mcpServers": {f"s{i}": {"url": url, "headers": {"Authorization": "Bearer ${T}"}}
                                   for i in range(servers)}})
    files["work/big.warden.lock"] = dumps(lock_doc({"url": url}, prompts, approved=True,
                                                   overall="sha256:" + "0" * 64))
    return files


def validation_many_sections(size):
    # Up to 20,000 ~/.claude.json projects, each a section with one small server.
    projects = scaled(size, MAX_SECTIONS)
    pad = "x" * max(0, size // projects - 120)
    doc = {"projects": {f"/p{i}": {"history": [pad], "mcpServers": {f"s{i}": {"command": "node"}}}
                        for i in range(projects)}}
    return {"home/.claude.json": dumps(doc)}


def render_wide_cells(size):
    # Long names made of break characters, wide and zero-width characters (table
    # wrapping and column widths), with URLs of the same text.
    forms = ["/ ", "#", " ", "界", "a\u0301", "\u200b", "x" * 50 + " "]

    def make(i, n):
        return {repeat_to(forms[i % 7], n): {"url": "http://h.example.com/" + repeat_to(forms[i % 7], n)}}
    half = MAX_STRING // 2
    count = fixed_count(make, half, 7)
    n = scaled(size, half)
    servers = {}
    for i in range(count):
        (name, body), = make(i, n).items()
        servers[f"{i}{name}"] = body
    return cursor({"mcpServers": servers})


def render_pin_quoting(size):
    # Next steps and the CI snippet: long argvs whose words all need quoting.
    forms = ["'''", "a b", "$x$", "--lock", "\\\\", "ééé", "#!"]
    return list_servers(size, lambda k: forms[k % len(forms)], lambda a: {"command": "node", "args": a})


# (name, what it drives, modes, generator)
def opencode_raw_references(size):
    # One `{env:X}` per string, hundreds of thousands of them, and a `// {file:…}`
    # line holding thousands more: the raw-text reference check scans each once.
    count = max(1, (size - 64 * KIB) // 12)
    line = "// " + "{file:a}" * max(1, (32 * KIB) // 8)
    text = line + "\n" + dumps({"mcp": {}, "x": ["{env:X}"] * count})
    return {"home/.config/opencode/opencode.json": text}


def gemini_comments(size):
    # Comments between every member, each holding a quote and a slash: the
    # comment-stripper model runs once over the file.
    n = scaled(size, MAX_SERVERS)
    body = ",\n".join(f'/* "{i}" // */ "s{i}": {{"command": "x"}} /* // " */' for i in range(n))
    return {"home/.gemini/settings.json": '{"mcpServers": {\n' + body + "\n}}"}


def yaml_anchors(size):
    # Servers sharing anchored env maps, within the YAML package's alias budget.
    n = scaled(size, MAX_SERVERS // 4)
    head = "name: c\nversion: 1.0.0\nschema: v1\nmcpServers:\n"
    items = "".join(
        f"  - name: s{i}\n    command: x\n    env: &e{i} {{A: b}}\n" for i in range(n))
    return {"home/.continue/config.yaml": head + items}


def vscode_settings_keys(size):
    # A settings.json of many unrelated settings and dotted keys around one
    # server map: only the MCP parts are built.
    n = scaled(size, 200_000)
    doc = {f"editor.setting{i}": i for i in range(n)}
    doc["mcp"] = {"servers": {"s": {"command": "x"}}}
    return {"home/.config/Code/User/settings.json": dumps(doc)}


def values_one_line_args_env(size):
    # 4,096 args and 4,096 env values per server, all on one line, each a finding:
    # every finding looks up its value's position among the entry's 8,193 values.
    def server(items):
        return {"command": "node", "args": [f"--token={v}" for _, v in items], "env": dict(items)}
    return list_servers(size, lambda k: (f"K{k}", entropy_token(k)), server)


def values_many_small_servers(size):
    # Up to 20,000 servers of ten high-entropy env values each (up to 200,000
    # findings), sharing five launches: grouping by server, one lock per launch,
    # the text report's wrapping, and the summary.
    count = scaled(size, 19_990)
    doc = {"mcpServers": {f"srv-{i}": {"command": "node", "args": [f"pkg{i % 5}"],
                                       "env": {f"K{k}": entropy_token(i * 10 + k, 24) for k in range(10)}}
                          for i in range(count)}}
    return cursor(padded(doc, size))


def suppress_many_entries(size):
    # 500 `[[ignore]]` entries for the rule every finding has, none matching, over
    # findings whose targets are long server names: each finding meets every glob.
    files = findings_long_name(size)
    globs = ["**#nomatch-*", "~/.cursor/**/x*#*y", "*#*-*-*-*z", "**/*#**q", "~/.cursor/mcp.json#?-n*m"]
    entries = "".join(
        f'[[ignore]]\nrule = "WRD-SEC-ENTROPY"\ntarget = "{globs[i % 5]}{i}"\n'
        f'reason = "r"\nexpires = "2999-12-31"\n' for i in range(500))
    files["home/.config/mcp-warden/ignore.toml"] = entries
    return files


SHAPES = [
    ("supply: `=$(` words after an assignment", "supply (fetch-execute)", ["text"], supply_subst_in_stage),
    ("supply: assignments and `\"$(x)\"` in one script", "supply, shell", ["text"], supply_script_subst),
    ("supply: `npx -p npx -p …`", "supply (launchers)", ["text"], supply_launcher_chain),
    ("supply: `pip install pip install …`", "supply (launchers)", ["text"], supply_pip_chain),
    ("supply: `pip install a1 a2 …`", "supply (pins)", ["text"], supply_pip_specs),
    ("supply: `$(`, backtick, `<(` runs", "supply, shell", ["text"], supply_subst_nest),
    ("shell: runs of one operator or quote", "shell", ["text"], shell_operator_runs),
    ("secrets: vendor hits between long tokens", "secrets", ["text", "auth"], secrets_vendor_and_entropy),
    ("secrets: 4,096 high-entropy env values", "secrets, auth, renderers", ["text", "json", "sarif", "auth"],
     secrets_env_list),
    ("findings: long server name × many findings", "targets, renderers", ["text", "json", "sarif"],
     findings_long_name),
    ("values: 4,096 args and env on one line, each a finding", "value positions, renderers",
     ["text", "json", "sarif"], values_one_line_args_env),
    ("values: 20,000 servers × 10 findings, 5 launches", "grouping, lock names, text report",
     ["text", "json"], values_many_small_servers),
    ("suppress: 500 ignore entries × long targets", "suppressions", ["text"], suppress_many_entries),
    ("refs: nested and repeated references", "refs", ["text"], refs_nesting),
    ("keys: identifiers of thousands of words", "keys, text", ["text"], keys_long_identifiers),
    ("pattern: pin-pattern runs in package specs", "pattern, supply", ["text"], pattern_package_specs),
    ("mask: auth flags, KEY=value, JSON args", "mask, auth", ["text"], mask_argument_shapes),
    ("mask: deep and wide JSON arguments", "mask", ["text"], mask_json_depth),
    ("url: `&` pairs, segments, fragments, `@`", "url, mask, auth", ["text", "auth"], url_query_pairs),
    ("url: query-heavy URL as a launch argument", "url, mask, supply", ["text"], url_arguments),
    ("names: one name in many projects", "lock names, Next steps", ["text"], names_shared),
    ("names: names that slug alike", "lock names", ["text"], names_slug_collisions),
    ("display keys: `a#servers###…` chain", "display keys", ["text"], display_keys_chain),
    ("locks: many locks × many servers", "lock coverage", ["text"], locks_many_vs_many),
    ("locks: one inconsistent lock × many servers", "lock coverage", ["text"], locks_inconsistent_big),
    ("validation: 19,990 sections", "validation, collect", ["text", "json"], validation_many_sections),
    ("render: long names of break and wide chars", "text table, JSONL, SARIF", ["text", "json", "sarif"],
     render_wide_cells),
    ("render: argvs that all need quoting", "Next steps, CI snippet", ["text"], render_pin_quoting),
    ("loaders: OpenCode raw-text references", "OpenCode loader", ["text"], opencode_raw_references),
    ("loaders: Gemini CLI comments everywhere", "Gemini CLI loader", ["text"], gemini_comments),
    ("loaders: Continue YAML anchors", "Continue YAML loader", ["text"], yaml_anchors),
    ("loaders: VS Code settings.json of many settings", "VS Code settings loader", ["text"],
     vscode_settings_keys),
]


def materialise(root, files):
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(os.path.join(root, "home"))
    os.makedirs(os.path.join(root, "work"))
    total = 0
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = text.encode("utf-8")
        total += len(data)
        with open(path, "wb") as f:
            f.write(data)
    return total


def argv_for(binary, root, files, mode):
    home = os.path.join(root, "home")
    base = [binary, "doctor", "--home", home, "--platform", "linux"]
    if mode == "text":
        return base
    if mode == "json":
        return base + ["--json"]
    if mode == "sarif":
        return base + ["--sarif", os.path.join(root, "out.sarif")]
    if mode == "auth":
        configs = [os.path.join(root, rel) for rel in files if rel.startswith("home/")]
        return [binary, "auth", "audit"] + configs
    raise ValueError(mode)


def measure(argv, cwd, runs, timeout, env):
    """Median wall seconds, or None after a timeout; the exit codes seen."""
    times, codes = [], set()
    for _ in range(runs):
        start = time.perf_counter()
        try:
            proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, codes
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        codes.add(proc.returncode)
        if elapsed > 2.0:
            break  # a slow size is measured once; its figure is what matters
    return statistics.median(times), codes


def cell(seconds, timeout):
    return f"> {timeout:.0f} s" if seconds is None else f"{seconds * 1000:.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--binary", help="the binary to measure (default: build target/release)")
    ap.add_argument("--reference", help="a second binary (an earlier build), measured in the same run")
    ap.add_argument("--only", help="run the shapes whose name contains this text")
    scale = ap.add_mutually_exclusive_group()
    scale.add_argument("--quick", action="store_true", help="64–512 KiB, one run each")
    scale.add_argument("--smoke", action="store_true",
                       help="64 and 128 KiB, one run each (for a debug binary: does every generator work?)")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--keep", action="store_true", help="keep the generated homes")
    args = ap.parse_args()

    global LARGEST
    sizes = SMOKE_SIZES if args.smoke else QUICK_SIZES if args.quick else SIZES
    LARGEST = sizes[-1]
    runs = 1 if args.quick or args.smoke else args.runs
    binary = os.path.abspath(args.binary) if args.binary else None
    if not binary:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        binary = os.path.join(ROOT, "target", "release", "mcp-warden")
    builds = [("this", binary)]
    if args.reference:
        builds.append(("reference", os.path.abspath(args.reference)))
    out_dir = os.path.join(ROOT, "target", "bench-homes", "adversarial")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "NO_COLOR": "1"}

    labels = [f"{round(s / MIB)} MiB" if s >= MIB else f"{round(s / KIB)} KiB" for s in sizes]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Linux {platform.release()}; "
          f"date: {time.strftime('%Y-%m-%d')}; median of {runs} run(s), ms (a run over 2 s is taken once)")
    print()
    print("| shape | drives | mode | build | " + " | ".join(labels) + " | ms per MiB at the largest | largest / half | exit |")
    print("|---|---|---|---|" + "---|" * len(sizes) + "---|---|---|")
    failures = 0
    for name, drives, modes, make in SHAPES:
        if args.only and args.only not in name:
            continue
        per_size = []
        for size in sizes:
            files = make(size)
            root = os.path.join(out_dir, f"{make.__name__}-{size}")
            actual = materialise(root, files)
            per_size.append((root, files, actual))
        for mode, (build, path) in ((m, b) for m in modes for b in builds):
            cells, codes, times = [], set(), []
            for root, files, actual in per_size:
                if times and times[-1] is None:
                    cells.append("not run")  # a smaller size already timed out
                    times.append(None)
                    continue
                seconds, seen = measure(argv_for(path, root, files, mode), os.path.join(root, "work"),
                                        runs, args.timeout, env)
                cells.append(cell(seconds, args.timeout))
                codes |= seen
                times.append(seconds)
            largest_mib = per_size[-1][2] / MIB
            if times[-1] is not None and times[-2]:
                per_mib = f"{times[-1] * 1000 / largest_mib:.1f}"
                ratio = f"{times[-1] / times[-2]:.2f}"
            else:
                per_mib, ratio = "—", "—"
            if any(c not in (0, 1, 2) for c in codes):
                failures += 1
            print(f"| {name} | {drives} | {mode} | {build} | " + " | ".join(cells) +
                  f" | {per_mib} | {ratio} | {','.join(str(c) for c in sorted(codes))} |", flush=True)
        if not args.keep:
            for root, _, _ in per_size:
                shutil.rmtree(root, ignore_errors=True)
    if failures:
        print(f"\n{failures} row(s) saw an exit status other than 0, 1 or 2 (a crash)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
