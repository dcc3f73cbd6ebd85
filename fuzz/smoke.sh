#!/usr/bin/env bash
# Fuzz smoke for CI (`.ci/run` calls it): build every cargo-fuzz target on stable
# (`-s none`) and fuzz each for a short fixed time, seeded from the checked-in
# corpus and regressions. New inputs go to a temporary directory, so CI never grows
# the checked-in corpus. Any crash, property failure, timeout or memory blow-up
# fails the run; libFuzzer writes the input to fuzz/artifacts/<target>/ (uploaded by
# .github/workflows/fuzz.yml).
#
# FUZZ_SMOKE_SECONDS (default 12) sets the time per target; FUZZ_SMOKE_TARGETS
# (space-separated) restricts the targets; FUZZ_SMOKE_JOBS (default: the number of
# cores) is how many targets fuzz at once (libFuzzer runs one thread per target).
#
# The smoke builds at opt-level 1 without debug info: a cold build of all targets
# took 8.3 min at the fuzz profile's opt-level 3 with line tables and 5 min this
# way on a 2-core machine, and CI's whole run must stay under 25 minutes. A smoke
# of seconds replays the corpus and regressions and explores a little; the nightly
# fuzz workflow and a local `cargo fuzz build` use the profile as it is. Both
# `cargo fuzz build` and `cargo fuzz run` below see these, so the run does not
# rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_PROFILE_RELEASE_OPT_LEVEL=1
export CARGO_PROFILE_RELEASE_DEBUG=0

seconds="${FUZZ_SMOKE_SECONDS:-12}"
export PATH="$HOME/.cargo/bin:$PATH"

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

# The dictionary each target uses, if any.
dict_for() {
  case "$1" in
    json | jsonc | lock | mcp_message) echo fuzz/dict/json.dict ;;
    toml | yaml | pin_command | safe_text) echo "fuzz/dict/$1.dict" ;;
    *) echo "" ;;
  esac
}

read -r -a targets <<<"${FUZZ_SMOKE_TARGETS:-$(cargo fuzz list | tr '\n' ' ')}"

# `cargo fuzz build` takes no `--locked`, and would silently rewrite a stale
# fuzz/Cargo.lock (the fuzz crate depends on the CLI by path, so a dependency added
# to the root Cargo.toml lands here too). Fetching with --locked first makes a lock
# that is out of step fail the run, naming the fix.
if ! cargo fetch --locked --quiet --manifest-path fuzz/Cargo.toml; then
  echo "fuzz smoke FAILED: fuzz/Cargo.lock is out of step with the manifests; run" \
    "\`cargo fetch --manifest-path fuzz/Cargo.toml\` (it changes only what they need)" \
    "and commit fuzz/Cargo.lock" >&2
  exit 1
fi

start=$(date +%s)
nice -n 10 cargo fuzz build -s none
echo "fuzz smoke: built ${#targets[@]} targets in $(($(date +%s) - start)) s"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs_at_once="${FUZZ_SMOKE_JOBS:-$(nproc)}"

# One target's fuzzing, its output in $work/<target>.log and its exit status in
# $work/<target>.rc; reported in target order once all have run.
fuzz_one() {
  local t="$1" d dict
  mkdir -p "$work/$t"
  local dirs=("$work/$t")
  for d in "fuzz/corpus/$t" "fuzz/regressions/$t"; do
    [ -d "$d" ] && dirs+=("$d")
  done
  local opts=(-max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
  dict=$(dict_for "$t")
  [ -n "$dict" ] && opts+=(-dict="$dict")
  local status=0
  nice -n 10 cargo fuzz run -s none "$t" "${dirs[@]}" -- "${opts[@]}" >"$work/$t.log" 2>&1 || status=$?
  echo "$status" >"$work/$t.rc"
}

echo "fuzz smoke: ${#targets[@]} targets for ${seconds} s each, ${jobs_at_once} at once"
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait

failed=()
for t in "${targets[@]}"; do
  echo "==> fuzz $t"
  if [ "$(cat "$work/$t.rc" 2>/dev/null || echo missing)" != 0 ]; then
    failed+=("$t")
    tail -n 60 "$work/$t.log"
  else
    grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "$work/$t.log" | tr '\n' ' '
    grep -Eo 'cov: [0-9]+' "$work/$t.log" | tail -n 1
  fi
done

echo "fuzz smoke: $(($(date +%s) - start)) s in total"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz smoke FAILED: ${failed[*]} (inputs in fuzz/artifacts/)"
  exit 1
fi
echo "fuzz smoke passed"
