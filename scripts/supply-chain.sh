#!/usr/bin/env bash
# Supply-chain checks on our own dependencies (`.ci/run` calls this): cargo-deny's
# bans, licenses and sources checks, and its advisories check, against deny.toml,
# for both lock files (Cargo.lock and fuzz/Cargo.lock).
#
# The advisories check needs the RustSec advisory database, which only github.com
# serves (a git clone). Where it cannot be fetched, the run says so on a line of its
# own, "advisories NOT checked", and goes on; with MCP_WARDEN_REQUIRE_ADVISORIES=1
# (set it wherever github.com is reachable) an unfetchable database fails the run.
#
# cargo-deny is built from crates.io at an exact version with its own lock file
# (2.5 to 3 minutes on two cores, once per machine; the checks themselves take
# about 2 seconds).
set -euo pipefail
cd "$(dirname "$0")/.."

deny_version=0.20.2
export PATH="$HOME/.cargo/bin:$PATH"
if [ "$(cargo deny --version 2>/dev/null)" != "cargo-deny $deny_version" ]; then
  echo "installing cargo-deny $deny_version"
  nice -n 10 cargo install cargo-deny --locked --version "=$deny_version"
fi

manifests=(Cargo.toml fuzz/Cargo.toml)

checks=(bans licenses sources)
if timeout 120 cargo deny --log-level error fetch db; then
  checks+=(advisories)
  advisories=checked
elif [ "${MCP_WARDEN_REQUIRE_ADVISORIES:-0}" = 1 ]; then
  echo "error: the RustSec advisory database could not be fetched and MCP_WARDEN_REQUIRE_ADVISORIES=1" >&2
  exit 1
else
  advisories="NOT checked (the RustSec advisory database could not be fetched; set MCP_WARDEN_REQUIRE_ADVISORIES=1 where github.com is reachable)"
fi

for manifest in "${manifests[@]}"; do
  echo "cargo deny: $manifest: ${checks[*]}"
  cargo deny --manifest-path "$manifest" --config deny.toml --locked check "${checks[@]}"
done
echo "cargo deny: advisories $advisories"
