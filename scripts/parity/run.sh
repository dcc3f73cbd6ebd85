#!/usr/bin/env bash
# Re-generate the golden locks in tests/fixtures/pin/golden/ from the earlier
# (Python) implementation, so the parity test compares against fresh output.
#
#   scripts/parity/run.sh [PATH_TO_REFERENCE_MCP_WARDEN]
#
# The argv recorded in each lock is relative to the repository root, so run the
# parity test from there too (cargo does).
set -euo pipefail
cd "$(dirname "$0")/../.."
ref="${1:-${MCP_WARDEN_REF:-mcp-warden}}"
command -v "$ref" >/dev/null 2>&1 || { echo "reference CLI not found: $ref" >&2; exit 2; }
out=tests/fixtures/pin/golden
mkdir -p "$out"
for surface in tests/fixtures/pin/surfaces/*.json; do
  name="$(basename "$surface" .json)"
  rm -f "$out/$name.lock"
  env -u WARDEN_ACTOR -u WARDEN_ENV -u WARDEN_APPROVER \
    "$ref" pin --lock "$out/$name.lock" -- python3 tests/fixtures/pin/server.py "$surface" >/dev/null
  echo "pinned $name"
done
